package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.inject.Guice;
import com.google.inject.Injector;
import dev.quiver.binding.SessionContext;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.distributed.ClusterLifecycle;
import dev.quiver.distributed.DistributedModule;
import dev.quiver.distributed.client.ClusterConfig;
import dev.quiver.distributed.planner.DistributedSettings;
import dev.quiver.distributed.proto.ExecutorStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * CREATE TABLE AS and INSERT into an Iceberg table on a scheduler and two executor processes
 * started from the jars: the files are written by the executor processes (the final stage's tasks
 * run the write node there) and committed once by this process; Iceberg's reader reads DuckDB's
 * rows.
 */
@Tag("slow")
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class IcebergProcessClusterWriteTest {
  @TempDir Path tmp;

  @Test
  void executorProcessesWriteTheFiles() throws Exception {
    IcebergModel events = IcebergTables.events(tmp.resolve("events").toString());
    Path logs = Files.createDirectories(tmp.resolve("logs"));
    List<IcebergClusterWriteTest.Job> jobs = Collections.synchronizedList(new ArrayList<>());
    try (ProcessCluster processes = ProcessCluster.start(logs, 2, ProcessCluster.Options.of(2));
        Connection duck = DriverManager.getConnection("jdbc:duckdb:")) {
      Injector injector =
          Guice.createInjector(
              new DistributedModule(ClusterConfig.remote(processes.target()), new SessionConfig()));
      try (ClusterLifecycle lifecycle = injector.getInstance(ClusterLifecycle.class)) {
        lifecycle.start().addJobListener(IcebergClusterWriteTest.Job.into(jobs));
        try (SessionContext ctx = injector.getInstance(SessionContext.class)) {
          ctx.config()
              .set(DistributedSettings.BYTES_PER_TASK, "1k")
              .set(DistributedSettings.MAX_TASKS, "4")
              .withBatchSize(40);
          ctx.sql("ATTACH '" + tmp.resolve("warehouse") + "' AS lake (TYPE iceberg)");
          IcebergModel.load(duck, "t", events.table.schema(), events.live);
          Set<String> writers =
              IcebergClusterWriteTest.createAndInsert(
                  ctx,
                  duck,
                  jobs,
                  "iceberg_scan('" + events.table.location() + "')",
                  "p",
                  tmp.resolve("warehouse"));
          List<String> executors =
              processes.statuses().stream()
                  .map(ExecutorStatus::getInfo)
                  .map(i -> i.getExecutorId())
                  .toList();
          assertThat(executors).containsAll(writers);
          assertThat(writers).hasSize(2);
        }
      }
    }
  }
}
