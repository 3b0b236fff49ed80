package dev.quiver.binding.settings;

import dev.quiver.binding.errors.Suggestions;
import dev.quiver.binding.errors.UnknownSettingException;
import java.util.Collections;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.TreeMap;

/**
 * Every session setting the modules on the class path define, by key: the binding's own and those
 * of the {@link SettingsProvider}s found with {@link ServiceLoader} (the distributed engine, the
 * Flight SQL server). {@code SessionConfig} checks keys and values against it when they are set, so
 * a misspelt key or a bad value fails at {@code SET} with the closest key suggested rather than
 * being ignored or failing later in a planner.
 */
public final class SettingsRegistry {
  private static final Map<String, Setting<?>> SETTINGS = load();

  private SettingsRegistry() {}

  private static Map<String, Setting<?>> load() {
    Map<String, Setting<?>> byKey = new TreeMap<>();
    for (SettingsProvider provider :
        ServiceLoader.load(SettingsProvider.class, SettingsProvider.class.getClassLoader())) {
      for (Setting<?> s : provider.settings()) {
        Setting<?> previous = byKey.putIfAbsent(s.key(), s);
        if (previous != null && previous != s) {
          throw new IllegalStateException(
              "Setting " + s.key() + " is defined twice (" + provider.getClass().getName() + ")");
        }
      }
    }
    return Collections.unmodifiableMap(byKey);
  }

  /** All known settings, sorted by key. */
  public static Map<String, Setting<?>> all() {
    return SETTINGS;
  }

  /** The setting of {@code key} (canonical, lower case), if some module defines it. */
  public static Optional<Setting<?>> find(String key) {
    return Optional.ofNullable(SETTINGS.get(key));
  }

  /**
   * Whether the value of setting {@code key} (canonical) is a credential, never to be shown: its
   * setting says so, or its name looks like one (a key no module on this class path defines).
   */
  public static boolean isSecret(String key) {
    String k = key.toLowerCase(Locale.ROOT);
    if (find(k).map(Setting::secret).orElse(false)) {
      return true;
    }
    return k.contains("secret")
        || k.contains("password")
        || k.contains("token")
        || k.contains("credential");
  }

  /**
   * The setting of {@code key} (canonical, lower case).
   *
   * @param given the key as the user wrote it, for the error
   * @throws UnknownSettingException suggesting the closest known key
   */
  public static Setting<?> require(String key, String given) {
    Setting<?> s = SETTINGS.get(key);
    if (s == null) {
      // Keys share long prefixes, so only the closest one is a useful hint.
      throw new UnknownSettingException(
          given, Suggestions.closest(key, SETTINGS.keySet()).stream().limit(1).toList());
    }
    return s;
  }
}
