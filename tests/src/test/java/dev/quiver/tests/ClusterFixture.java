package dev.quiver.tests;

import com.google.inject.Guice;
import com.google.inject.Injector;
import dev.quiver.binding.SessionContext;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.distributed.ClusterLifecycle;
import dev.quiver.distributed.DistributedModule;
import dev.quiver.distributed.EmbeddedClusterModule;
import dev.quiver.distributed.client.ClusterConfig;
import dev.quiver.distributed.client.ClusterRuntime;
import dev.quiver.distributed.proto.JobStatusUpdate;
import dev.quiver.distributed.proto.StageStatus;
import dev.quiver.distributed.proto.TaskSummary;
import dev.quiver.distributed.security.SecurityConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/** Distributed Quiver engines for the differential tests, wired with the Guice modules. */
final class ClusterFixture {
  private ClusterFixture() {}

  /** A distributed engine: its rows, its cluster connection and the jobs it ran. */
  record ClusterRows(QuiverRows rows, ClusterRuntime runtime, List<JobStatusUpdate> jobs) {}

  /** Quiver on a new embedded cluster of {@code executors} executors (stopped on close). */
  static ClusterRows embedded(int executors, Path dir, SessionConfig config) {
    return open(
        Guice.createInjector(new EmbeddedClusterModule(executors, Differential.configured(config))),
        dir,
        "quiver-embedded" + executors);
  }

  /** Quiver on a new embedded cluster secured by {@code security} (stopped on close). */
  static ClusterRows embedded(
      int executors, Path dir, SessionConfig config, SecurityConfig security) {
    return open(
        Guice.createInjector(new EmbeddedClusterModule(executors, config, security)),
        dir,
        "quiver-embedded" + executors + "-secure");
  }

  /** Quiver on the running cluster at {@code target}. */
  static ClusterRows remote(String target, Path dir, SessionConfig config) {
    return remote(ClusterConfig.remote(target), dir, config);
  }

  /** Quiver on the running cluster of {@code cluster} (address and security). */
  static ClusterRows remote(ClusterConfig cluster, Path dir, SessionConfig config) {
    return open(
        Guice.createInjector(new DistributedModule(cluster, config)), dir, "quiver-cluster");
  }

  private static ClusterRows open(Injector injector, Path dir, String name) {
    ClusterLifecycle lifecycle = injector.getInstance(ClusterLifecycle.class);
    try {
      ClusterRuntime runtime = lifecycle.start();
      List<JobStatusUpdate> jobs = java.util.Collections.synchronizedList(new ArrayList<>());
      runtime.addJobListener((graph, status) -> jobs.add(status));
      SessionContext ctx = injector.getInstance(SessionContext.class);
      return new ClusterRows(new QuiverRows(ctx, dir, name, lifecycle), runtime, jobs);
    } catch (RuntimeException e) {
      lifecycle.close();
      throw e;
    }
  }

  /** Executors that ran at least one task of {@code job}. */
  static Set<String> executorsOf(JobStatusUpdate job) {
    Set<String> ids = new TreeSet<>();
    for (StageStatus s : job.getStagesList()) {
      for (TaskSummary t : s.getTasksList()) {
        ids.add(t.getExecutorId());
      }
    }
    return ids;
  }
}
