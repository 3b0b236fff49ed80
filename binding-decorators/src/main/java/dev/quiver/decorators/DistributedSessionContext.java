package dev.quiver.decorators;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.dataframe.DataFrame;
import dev.quiver.binding.datasource.TableProvider;
import dev.quiver.binding.settings.SessionConfig;

/**
 * A {@link SessionContext} whose queries run on a cluster: it installs the distribution's extension
 * (a planner that cuts plans into stages), checks registered providers and hands out {@link
 * DistributedDataFrame}s. Code typed against {@code SessionContext} does not change.
 */
public class DistributedSessionContext extends SessionContext {
  private final Distribution distribution;

  /** Whom the session's queries run for ("" for this process's user); see {@link #newSession}. */
  private final String user;

  /** A session with default settings on {@code distribution}. */
  public DistributedSessionContext(Distribution distribution) {
    this(new SessionConfig(), distribution);
  }

  /** A session with {@code config} on {@code distribution}. */
  public DistributedSessionContext(SessionConfig config, Distribution distribution) {
    super(config);
    this.distribution = distribution;
    this.user = "";
    withExtensions(distribution.extension());
  }

  /** A session sharing {@code shared}'s tables and distribution (see {@link #newSession()}). */
  protected DistributedSessionContext(DistributedSessionContext shared) {
    this(shared, shared.user);
  }

  private DistributedSessionContext(DistributedSessionContext shared, String user) {
    super(shared);
    this.distribution = shared.distribution;
    this.user = user;
  }

  /** A new session on the same distribution over this one's tables (its planner included). */
  @Override
  public DistributedSessionContext newSession() {
    return new DistributedSessionContext(this);
  }

  /**
   * As {@link #newSession()}, whose queries' jobs name {@code user} (a server's authenticated
   * client) instead of this process's OS user: the scheduler takes it from a trusted front end.
   */
  public DistributedSessionContext newSession(String user) {
    return new DistributedSessionContext(this, user);
  }

  /** Whom this session's queries run for, or "" for this process's own user. */
  public String user() {
    return user;
  }

  /** Where this session's queries run. */
  public Distribution distribution() {
    return distribution;
  }

  @Override
  public void registerTable(String name, TableProvider provider) {
    TableProvider checked =
        provider instanceof DistributedTableProvider
            ? provider
            : new DistributedTableProvider(name, provider, distribution);
    super.registerTable(name, checked);
  }

  @Override
  public void registerView(String name, DataFrame view) {
    super.registerView(name, DistributedDataFrame.unwrap(view));
  }

  @Override
  public DataFrame table(String name) {
    return DistributedDataFrame.wrap(super.table(name), this);
  }

  @Override
  public DataFrame sql(String sql) {
    // A statement that runs at once (e.g. INSERT) names its job after its SQL too.
    return DistributedDataFrame.wrap(
        new QueryScope(sql, user, progress -> {}).run(() -> super.sql(sql)), this, sql);
  }

  @Override
  public String toString() {
    return "DistributedSessionContext(" + distribution.describe() + ")";
  }
}
