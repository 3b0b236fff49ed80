package dev.quiver.flightsql;

import dev.quiver.binding.settings.Setting;
import dev.quiver.binding.settings.SettingsProvider;
import java.util.List;

/**
 * The Flight SQL server's session settings, registered with the binding's {@link
 * dev.quiver.binding.settings.SettingsRegistry} through {@link java.util.ServiceLoader}.
 */
public final class FlightSqlSettings implements SettingsProvider {
  /** Whether a distributed query's results are served straight from the executors. */
  public static final Setting<Boolean> EXECUTOR_ENDPOINTS =
      Setting.bool(
          ExecutorEndpoints.SETTING,
          null,
          "the server's --executor-endpoints (false)",
          "quiver serve: a distributed query's FlightInfo lists one endpoint per final task at the"
              + " executor holding its output, which the client fetches directly.");

  /** Used by {@link java.util.ServiceLoader}. */
  public FlightSqlSettings() {}

  @Override
  public List<Setting<?>> settings() {
    return List.of(EXECUTOR_ENDPOINTS);
  }
}
