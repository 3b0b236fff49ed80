/**
 * Session settings as typed, documented options: each {@link dev.quiver.binding.settings.Setting}
 * has a key, type, default and documentation; modules contribute theirs through a {@link
 * dev.quiver.binding.settings.SettingsProvider}, and the {@link
 * dev.quiver.binding.settings.SettingsRegistry} against which {@code SessionConfig} checks every
 * key and value when it is set.
 */
package dev.quiver.binding.settings;
