package dev.quiver.decorators;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import dev.quiver.binding.SessionContext;
import dev.quiver.binding.settings.SessionConfig;

/**
 * The plain binding, wired with Guice: every injected {@link SessionContext} is a new
 * single-process session with the module's settings. Swap this module for the distributed engine's
 * and the same application runs on a cluster.
 */
public final class BindingModule extends AbstractModule {
  private final SessionConfig config;

  /** Sessions with default settings. */
  public BindingModule() {
    this(new SessionConfig());
  }

  /** Sessions with {@code config} (copied per session). */
  public BindingModule(SessionConfig config) {
    this.config = config.copy();
  }

  @Provides
  SessionContext session() {
    return new SessionContext(config.copy());
  }
}
