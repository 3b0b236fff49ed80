/**
 * Session settings: {@link dev.quiver.binding.settings.SessionConfig}, a session's (or task's)
 * key/value settings, and the typed, documented options behind it: each {@link
 * dev.quiver.binding.settings.Setting} has a key, type, default and documentation; modules
 * contribute theirs through a {@link dev.quiver.binding.settings.SettingsProvider} ({@link
 * dev.quiver.binding.settings.BindingSettings} for the binding's own), and the {@link
 * dev.quiver.binding.settings.SettingsRegistry} against which {@code SessionConfig} checks every
 * key and value when it is set.
 */
package dev.quiver.binding.settings;
