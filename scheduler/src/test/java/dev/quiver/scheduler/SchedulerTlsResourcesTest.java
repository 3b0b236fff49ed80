package dev.quiver.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.distributed.proto.ListExecutorsRequest;
import dev.quiver.distributed.proto.SchedulerGrpc;
import dev.quiver.distributed.security.GrpcSecurity;
import dev.quiver.distributed.security.TestCertificates;
import dev.quiver.scheduler.config.SchedulerConfig;
import io.grpc.ManagedChannel;
import java.lang.reflect.Field;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A scheduler serving TLS gives back everything it took of gRPC's shared resources when it closes.
 * Each TLS connection it accepted once took a reference to gRPC's shared executor that nothing
 * released, so its pool (and its idle threads) outlived every cluster: a JVM that waits for them
 * ({@code mvn exec:java}, ReadmeSnippetsTest) waited a minute per embedded TLS cluster run before.
 */
@Timeout(60)
class SchedulerTlsResourcesTest {
  private static final String TOKEN = "tls-resources-token";

  @TempDir Path dir;

  @Test
  void closingATlsSchedulerReleasesGrpcsSharedExecutor() throws Exception {
    TestCertificates certs = TestCertificates.generate(dir.resolve("certs"));
    int before = sharedExecutorReferences();
    SchedulerServer scheduler =
        SchedulerServer.start(
            SchedulerConfig.defaults().withPort(0).withSecurity(certs.node(TOKEN)));
    try {
      // Three clients, three TLS connections accepted.
      for (int i = 0; i < 3; i++) {
        ManagedChannel channel =
            GrpcSecurity.channelBuilder("localhost", scheduler.port(), certs.client(TOKEN)).build();
        try {
          SchedulerGrpc.newBlockingStub(channel)
              .withDeadlineAfter(10, TimeUnit.SECONDS)
              .listExecutors(ListExecutorsRequest.getDefaultInstance());
        } finally {
          channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
      }
    } finally {
      scheduler.close();
    }
    // gRPC returns a channel's references as it terminates; allow for that to finish.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (sharedExecutorReferences() > before && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(sharedExecutorReferences())
        .as("references to gRPC's shared executor")
        .isEqualTo(before);
  }

  /** References held to gRPC's shared executor (GrpcUtil.SHARED_CHANNEL_EXECUTOR), 0 without. */
  private static int sharedExecutorReferences() throws Exception {
    Class<?> holderClass = Class.forName("io.grpc.internal.SharedResourceHolder");
    Field holderField = holderClass.getDeclaredField("holder");
    holderField.setAccessible(true);
    Object holder = holderField.get(null);
    Field instancesField = holderClass.getDeclaredField("instances");
    instancesField.setAccessible(true);
    synchronized (holder) {
      for (Map.Entry<?, ?> e : ((Map<?, ?>) instancesField.get(holder)).entrySet()) {
        if (e.getKey().toString().equals("grpc-default-executor")) {
          Field refcount = e.getValue().getClass().getDeclaredField("refcount");
          refcount.setAccessible(true);
          return (Integer) refcount.get(e.getValue());
        }
      }
    }
    return 0;
  }
}
