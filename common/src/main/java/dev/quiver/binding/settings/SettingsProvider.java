package dev.quiver.binding.settings;

import java.util.List;

/**
 * Contributes settings to the {@link SettingsRegistry}: each module that reads session settings
 * lists its own, found with {@link java.util.ServiceLoader} (a {@code
 * META-INF/services/dev.quiver.binding.settings.SettingsProvider} entry).
 */
public interface SettingsProvider {
  /** The settings this module reads. */
  List<Setting<?>> settings();
}
