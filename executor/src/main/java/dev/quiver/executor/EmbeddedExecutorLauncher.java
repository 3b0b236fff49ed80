package dev.quiver.executor;

import dev.quiver.distributed.codec.StageDecoder;
import dev.quiver.distributed.security.SecurityConfig;
import dev.quiver.distributed.spi.ExecutorLauncher;
import dev.quiver.distributed.spi.RunningServer;
import dev.quiver.distributed.transport.GrpcTransport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts executors inside this process for the embedded cluster; found through {@link
 * java.util.ServiceLoader}. All of them allocate from one process-wide root allocator.
 */
public final class EmbeddedExecutorLauncher implements ExecutorLauncher {

  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedExecutorLauncher.class);

  /** Created on first use and kept for the life of the process, like a session's root. */
  private static final class Root {
    static final BufferAllocator ALLOCATOR = new RootAllocator();
  }

  /**
   * The port an executor advertises on a transport other than TCP ({@link GrpcTransport#NETTY}):
   * such a transport (gRPC's in-process one in unit tests) names servers by host alone, so each
   * executor's host is its id and the port is only a placeholder.
   */
  static final int PORT_OFF_TCP = 1;

  private final ExecutorServer.StageDecoderFactory decoders;
  private final GrpcTransport transport;

  /** A launcher whose executors decode plans with the executor jar's plan codec. */
  public EmbeddedExecutorLauncher() {
    this(ExecutorMain::stageDecoder);
  }

  /** A launcher whose executors decode plans with {@code decoder}. */
  public EmbeddedExecutorLauncher(StageDecoder decoder) {
    this(extensionLoader -> decoder);
  }

  /** A launcher whose executors build their decoder with {@code decoders}. */
  public EmbeddedExecutorLauncher(ExecutorServer.StageDecoderFactory decoders) {
    this(decoders, GrpcTransport.NETTY);
  }

  /**
   * A launcher whose executors build their decoder with {@code decoders} and serve and call over
   * {@code transport}; off TCP each executor is reached at its id and {@link #PORT_OFF_TCP}.
   */
  public EmbeddedExecutorLauncher(
      ExecutorServer.StageDecoderFactory decoders, GrpcTransport transport) {
    this.decoders = decoders;
    this.transport = transport;
  }

  /** The process-wide allocator embedded executors allocate from. */
  public static BufferAllocator rootAllocator() {
    return Root.ALLOCATOR;
  }

  @Override
  public RunningServer start(
      String schedulerTarget, Path workDir, int cores, long memoryBytes, SecurityConfig security)
      throws Exception {
    return start(schedulerTarget, workDir, cores, memoryBytes, security, false);
  }

  @Override
  public RunningServer start(
      String schedulerTarget,
      Path workDir,
      int cores,
      long memoryBytes,
      SecurityConfig security,
      boolean serveHttp)
      throws Exception {
    int colon = schedulerTarget.lastIndexOf(':');
    int port;
    try {
      port = Integer.parseInt(schedulerTarget.substring(colon + 1));
    } catch (NumberFormatException | IndexOutOfBoundsException e) {
      port = -1;
    }
    if (colon <= 0 || port < 1 || port > 65535) {
      throw new IllegalArgumentException(
          "scheduler target must be HOST:PORT, got '" + schedulerTarget + "'");
    }
    boolean createdWorkDir = !Files.exists(workDir);
    String id = "embedded-" + UUID.randomUUID().toString().substring(0, 8);
    ExecutorConfig config =
        ExecutorConfig.defaults(schedulerTarget.substring(0, colon), port, workDir)
            .withExecutorId(id)
            .withPort(0)
            .withResources(cores, memoryBytes)
            .withSecurity(security)
            .withHttpPort(serveHttp ? 0 : ExecutorConfig.NO_HTTP);
    if (transport != GrpcTransport.NETTY) {
      config = config.withHosts(id, id).withPort(PORT_OFF_TCP);
    }
    ExecutorServer server = ExecutorServer.start(config, Root.ALLOCATOR, decoders, transport, true);
    String target = config.host() + ":" + server.port();
    return new RunningServer() {
      @Override
      public String id() {
        return server.executorId();
      }

      @Override
      public String target() {
        return target;
      }

      @Override
      public int httpPort() {
        return server.httpPort();
      }

      @Override
      public void close() {
        try {
          server.close();
        } finally {
          if (createdWorkDir) {
            deleteTree(workDir);
          }
        }
      }
    };
  }

  private static void deleteTree(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files
          .sorted(Comparator.reverseOrder())
          .forEach(
              p -> {
                try {
                  Files.deleteIfExists(p);
                } catch (IOException e) {
                  LOG.warn("could not delete {}: {}", p, e.toString());
                }
              });
    } catch (IOException e) {
      LOG.warn("could not delete executor work directory {}: {}", dir, e.toString());
    }
  }
}
