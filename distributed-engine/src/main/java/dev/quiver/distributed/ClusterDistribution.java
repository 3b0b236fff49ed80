package dev.quiver.distributed;

import dev.quiver.binding.Extension;
import dev.quiver.binding.datasource.ScanRequest;
import dev.quiver.binding.datasource.TableProvider;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.decorators.Distribution;
import dev.quiver.distributed.client.ClusterRuntime;
import dev.quiver.distributed.client.DistributedQueryExec;
import dev.quiver.distributed.codec.PlanCodec;
import dev.quiver.distributed.codec.PlanCodecException;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/** The decorators' view of a cluster: its extension, provider checks and stage rendering. */
public final class ClusterDistribution implements Distribution {
  private final ClusterRuntime runtime;
  private final DistributedExtension extension;

  /** A distribution over {@code runtime} (shared; the caller closes it). */
  public ClusterDistribution(ClusterRuntime runtime) {
    this.runtime = runtime;
    this.extension = DistributedExtension.over(runtime);
  }

  @Override
  public Extension extension() {
    return extension;
  }

  @Override
  public void checkRebuildable(String tableName, TableProvider provider) {
    ExecutionPlan scan;
    try {
      scan = provider.scan(fullScan(provider, 1));
    } catch (RuntimeException e) {
      throw new QuiverException(
          "Table '"
              + tableName
              + "' cannot be registered on the cluster: planning its scan failed: "
              + e.getMessage(),
          e);
    }
    try {
      new PlanCodec(PlanCodec.DEFAULT_MAX_SHIPPED_BYTES).checkEncodable(scan);
    } catch (PlanCodecException e) {
      throw new QuiverException(
          "Table '"
              + tableName
              + "' ("
              + provider.getClass().getName()
              + ") cannot run on the cluster's executors: "
              + e.getMessage()
              + ". Provide a NodeCodec for its scan node on the client and executor classpaths,"
              + " or register its data as Parquet",
          e);
    }
  }

  @Override
  public int scanTasks(TableProvider provider, int targetTasks) {
    return provider.scan(fullScan(provider, targetTasks)).partitionCount();
  }

  private static ScanRequest fullScan(TableProvider provider, int targetTasks) {
    return new ScanRequest(null, List.of(), OptionalLong.empty(), targetTasks, new SessionConfig());
  }

  @Override
  public Optional<String> stageGraphDot(ExecutionPlan physicalPlan) {
    return physicalPlan instanceof DistributedQueryExec d
        ? Optional.of(d.graph().toDot())
        : Optional.empty();
  }

  @Override
  public String describe() {
    return "cluster at " + runtime.config().target();
  }
}
