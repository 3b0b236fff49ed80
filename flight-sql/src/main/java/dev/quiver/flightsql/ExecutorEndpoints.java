package dev.quiver.flightsql;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.dataframe.DataFrame;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.PhysicalOptimizerRule;
import dev.quiver.binding.planner.PlanningContext;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.decorators.DistributedSessionContext;
import dev.quiver.decorators.QueryScope;
import dev.quiver.distributed.client.DistributedQueryExec;
import dev.quiver.distributed.client.JobHandle;
import dev.quiver.distributed.proto.JobStatusUpdate;
import dev.quiver.distributed.proto.PartitionLocation;
import dev.quiver.distributed.shuffle.ShuffleLocation;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.Location;

/**
 * A distributed query's result read straight from the executors: the job runs to completion, and
 * its FlightInfo lists one endpoint per final-stage task at the executor holding that task's
 * output, whose Flight server streams it to the client ({@code DoGet} with the shuffle ticket). The
 * JDBC driver and ADBC fetch the endpoints in parallel. Batches travel uncompressed, which every
 * client reads (the executors' compressed form is Quiver's own).
 */
final class ExecutorEndpoints {
  /**
   * The session setting that turns it on ({@code SET quiver.flight_sql.executor_endpoints = true}).
   */
  static final String SETTING = "quiver.flight_sql.executor_endpoints";

  private static final String COMPRESSION = "quiver.shuffle.compression";

  /** A job whose output the client reads from the executors; closing it releases the output. */
  record Served(JobHandle job, List<FlightEndpoint> endpoints) {}

  private ExecutorEndpoints() {}

  /** Whether {@code session} asked for executor endpoints. */
  static boolean wanted(SessionContext session, boolean serverDefault) {
    Boolean v = session.config().get(FlightSqlSettings.EXECUTOR_ENDPOINTS);
    return v == null ? serverDefault : v;
  }

  /**
   * Runs {@code frame} as a job and returns its endpoints, or null when the query does not run as a
   * distributed job ending in final-stage outputs (it is then read through the server), or its
   * outputs would be compressed.
   */
  static Served serve(SessionContext session, DataFrame frame, BooleanSupplier cancelled) {
    SessionConfig config = session.config().copy();
    String compression = config.get(COMPRESSION);
    if (compression != null && !compression.strip().equalsIgnoreCase("none")) {
      return null;
    }
    config.set(COMPRESSION, "none");
    PlanningContext planning =
        new PlanningContext() {
          @Override
          public SessionConfig config() {
            return config;
          }

          @Override
          public List<PhysicalOptimizerRule> physicalOptimizerRules() {
            return List.of();
          }
        };
    // Planned here rather than by a distributed frame: the scope names the job's user.
    String user = session instanceof DistributedSessionContext d ? d.user() : "";
    ExecutionPlan plan =
        new QueryScope("query", user, progress -> {})
            .run(() -> session.queryPlanner().createPhysicalPlan(frame.logicalPlan(), planning));
    if (!(plan instanceof DistributedQueryExec root)) {
      return null;
    }
    JobHandle job = JobHandle.submit(root.runtime().scheduler(), root.job());
    try {
      JobStatusUpdate status = job.awaitSuccess(cancelled);
      boolean tls = root.runtime().config().security().clientTls();
      List<ShuffleLocation> outputs = new ArrayList<>();
      for (PartitionLocation l : status.getFinalOutputsList()) {
        ShuffleLocation location = ShuffleLocation.fromProto(l);
        if (location.partition() == 0) {
          outputs.add(location);
        }
      }
      outputs.sort(Comparator.comparingInt(ShuffleLocation::taskId));
      List<FlightEndpoint> endpoints = new ArrayList<>();
      for (ShuffleLocation o : outputs) {
        Location at =
            tls
                ? Location.forGrpcTls(o.host(), o.port())
                : Location.forGrpcInsecure(o.host(), o.port());
        endpoints.add(new FlightEndpoint(o.ticket(), at));
      }
      return new Served(job, endpoints);
    } catch (RuntimeException e) {
      job.close();
      throw e;
    }
  }
}
