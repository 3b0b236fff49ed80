package dev.quiver.tests;

import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.distributed.client.ClusterConfig;
import dev.quiver.distributed.client.JobListener;
import dev.quiver.distributed.planner.StageGraph;
import dev.quiver.distributed.proto.JobStatusUpdate;
import dev.quiver.distributed.security.SecurityConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;

/**
 * A scheduler and executor jars with users (--users-file, a token per user) and resource groups
 * (--resource-groups), secured with a client token and a cluster credential; clients connect as a
 * user and record their jobs' status updates.
 */
final class UsersCluster implements AutoCloseable {
  static final String CLUSTER_TOKEN = "qv-cluster-93be";
  private static final String CLIENT_TOKEN = "qv-client-7c1d";

  private final ProcessCluster processes;
  private final List<Client> clients = new CopyOnWriteArrayList<>();

  private UsersCluster(ProcessCluster processes) {
    this.processes = processes;
  }

  /** One client: a session over the cluster with its user's token, and its jobs' updates. */
  record Client(ClusterFixture.ClusterRows cluster, List<JobStatusUpdate> updates) {
    QueryResult query(String sql) {
      return cluster.rows().query(sql);
    }

    boolean saw(Predicate<JobStatusUpdate> p) {
      return updates.stream().anyMatch(p);
    }
  }

  /**
   * Starts {@code executors} executors of {@code cores} slots and a scheduler knowing {@code users}
   * (each with the token {@code qv-<user>-token}) and the groups of {@code groupsJson}, with the
   * HTTP API when {@code http}; files and logs go under {@code dir}.
   */
  static UsersCluster start(
      Path dir, List<String> users, String groupsJson, int executors, int cores, boolean http)
      throws Exception {
    Path clientToken = Files.writeString(dir.resolve("client.token"), CLIENT_TOKEN);
    Path clusterToken = Files.writeString(dir.resolve("cluster.token"), CLUSTER_TOKEN);
    StringBuilder lines = new StringBuilder("# user:token-file\n");
    for (String user : users) {
      Files.writeString(dir.resolve(user + ".token"), token(user));
      lines.append(user).append(':').append(user).append(".token\n");
    }
    Path usersFile = Files.writeString(dir.resolve("users"), lines);
    Path groups = Files.writeString(dir.resolve("groups.json"), groupsJson);
    // Executors know the users too: clients read their results from them with their tokens.
    List<String> security =
        List.of(
            "--token-file",
            clientToken.toString(),
            "--cluster-token-file",
            clusterToken.toString(),
            "--users-file",
            usersFile.toString());
    List<String> schedulerArgs = new ArrayList<>(List.of("--resource-groups", groups.toString()));
    schedulerArgs.addAll(security);
    ProcessCluster.Options options =
        new ProcessCluster.Options(
            cores, null, schedulerArgs, security, SecurityConfig.none().withToken(CLIENT_TOKEN));
    Path logs = Files.createDirectories(dir.resolve("logs"));
    return new UsersCluster(
        ProcessCluster.start(logs, executors, http ? options.withHttp() : options));
  }

  static String token(String user) {
    return "qv-" + user + "-token";
  }

  /** A new client of {@code user} over the TPC-H tables of {@code data}. */
  Client client(String user, Path data, SessionConfig config) {
    ClusterFixture.ClusterRows rows =
        ClusterFixture.remote(
            ClusterConfig.remote(processes.target())
                .withSecurity(SecurityConfig.none().withToken(token(user))),
            data,
            config);
    List<JobStatusUpdate> updates = new CopyOnWriteArrayList<>();
    rows.runtime()
        .addJobListener(
            new JobListener() {
              @Override
              public void jobSucceeded(StageGraph graph, JobStatusUpdate status) {
                updates.add(status);
              }

              @Override
              public void jobUpdated(StageGraph graph, JobStatusUpdate status) {
                updates.add(status);
              }
            });
    Client c = new Client(rows, updates);
    clients.add(c);
    return c;
  }

  ProcessCluster processes() {
    return processes;
  }

  @Override
  public void close() {
    try {
      for (Client c : clients) {
        c.cluster().rows().close();
      }
    } finally {
      processes.close();
    }
  }
}
