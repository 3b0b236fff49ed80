package dev.quiver.distributed.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.distributed.security.SecurityConfig;
import dev.quiver.distributed.testproto.EchoReply;
import dev.quiver.distributed.testproto.EchoRequest;
import dev.quiver.distributed.testproto.EchoServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class SameProcessServersTest {
  // A port nothing listens on in these tests: the mirror alone answers there.
  private static final int PORT = 1;

  private final ExecutorService others =
      Executors.newSingleThreadExecutor(r -> new Thread(r, "mirror-others"));

  @AfterEach
  void stop() throws InterruptedException {
    others.shutdownNow();
    others.awaitTermination(5, TimeUnit.SECONDS);
  }

  /** Answers with the name of the thread its handler ran on. */
  private static final class ThreadEcho extends EchoServiceGrpc.EchoServiceImplBase {
    @Override
    public void echo(EchoRequest request, StreamObserver<EchoReply> out) {
      out.onNext(EchoReply.newBuilder().setText(Thread.currentThread().getName()).build());
      out.onCompleted();
    }
  }

  /** A mirror of a {@link ThreadEcho} at 127.0.0.1:{@link #PORT} (and {@code more} hosts). */
  private SameProcessServers.Mirror mirror(
      SecurityConfig security, Predicate<String> inline, String... more) throws Exception {
    List<String> hosts = new ArrayList<>(List.of("127.0.0.1"));
    hosts.addAll(List.of(more));
    return SameProcessServers.mirror(
        hosts, PORT, security, List.of(new ThreadEcho().bindService()), inline, others);
  }

  private static String call(String host, int port, SecurityConfig security) {
    ManagedChannel channel = GrpcTransport.NETTY.channelBuilder(host, port, security).build();
    try {
      return EchoServiceGrpc.newBlockingStub(channel)
          .withDeadlineAfter(10, TimeUnit.SECONDS)
          .echo(EchoRequest.getDefaultInstance())
          .getText();
    } finally {
      channel.shutdownNow();
    }
  }

  @Test
  void channelsOfThisProcessReachTheMirrorAndInlineCallsRunOnTheCallersThread() throws Exception {
    SecurityConfig none = SecurityConfig.none();
    try (SameProcessServers.Mirror m = mirror(none, method -> method.endsWith("/Echo"), "node-a")) {
      assertThat(m).isNotNull();
      assertThat(GrpcTransport.NETTY.channelBuilder("127.0.0.1", PORT, none))
          .isInstanceOf(InProcessChannelBuilder.class);
      // Both names the server goes by reach it; another port or host does not.
      assertThat(call("127.0.0.1", PORT, none)).isEqualTo(Thread.currentThread().getName());
      assertThat(call("node-a", PORT, none)).isEqualTo(Thread.currentThread().getName());
      assertThat(SameProcessServers.channelBuilder("127.0.0.1", PORT + 1, none)).isNull();
      assertThat(SameProcessServers.channelBuilder("node-b", PORT, none)).isNull();
    }
    // Withdrawn: the address is a TCP one again.
    assertThat(SameProcessServers.channelBuilder("127.0.0.1", PORT, none)).isNull();
    assertThat(GrpcTransport.NETTY.channelBuilder("127.0.0.1", PORT, none))
        .isInstanceOf(NettyChannelBuilder.class);
  }

  @Test
  void callsNotInlineRunOnTheGivenExecutor() throws Exception {
    SecurityConfig none = SecurityConfig.none();
    try (SameProcessServers.Mirror m = mirror(none, method -> false)) {
      assertThat(call("127.0.0.1", PORT, none)).isEqualTo("mirror-others");
    }
  }

  @Test
  void securedServersAreNeverMirroredNorReachedInProcess() throws Exception {
    SecurityConfig token = SecurityConfig.none().withToken("s3cret-token-value");
    assertThat(mirror(token, method -> true)).isNull();
    try (SameProcessServers.Mirror m = mirror(SecurityConfig.none(), method -> true)) {
      // A caller holding a token keeps to TCP, where the token is checked.
      assertThat(SameProcessServers.channelBuilder("127.0.0.1", PORT, token)).isNull();
    }
  }

  @Test
  void aClosedMirrorIsUnavailableToChannelsMadeBefore() throws Exception {
    SecurityConfig none = SecurityConfig.none();
    SameProcessServers.Mirror m = mirror(none, method -> true);
    ManagedChannel channel = GrpcTransport.NETTY.channelBuilder("127.0.0.1", PORT, none).build();
    try {
      m.close();
      assertThatThrownBy(
              () ->
                  EchoServiceGrpc.newBlockingStub(channel)
                      .withDeadlineAfter(10, TimeUnit.SECONDS)
                      .echo(EchoRequest.getDefaultInstance()))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
    } finally {
      channel.shutdownNow();
    }
  }

  @Test
  void aChannelMadeBeforeAServerRestartedAtTheSameAddressReachesTheNewOne() throws Exception {
    SecurityConfig none = SecurityConfig.none();
    ManagedChannel channel;
    try (SameProcessServers.Mirror first = mirror(none, method -> true)) {
      channel = GrpcTransport.NETTY.channelBuilder("127.0.0.1", PORT, none).build();
      EchoServiceGrpc.newBlockingStub(channel).echo(EchoRequest.getDefaultInstance());
    }
    try (SameProcessServers.Mirror second = mirror(none, method -> false)) {
      // The answer comes from the second server: its calls run on the given executor.
      EchoReply reply = null;
      for (int attempt = 0; attempt < 50 && reply == null; attempt++) {
        try {
          reply =
              EchoServiceGrpc.newBlockingStub(channel)
                  .withWaitForReady()
                  .withDeadlineAfter(10, TimeUnit.SECONDS)
                  .echo(EchoRequest.getDefaultInstance());
        } catch (StatusRuntimeException e) {
          Thread.sleep(20);
        }
      }
      assertThat(reply).isNotNull();
      assertThat(reply.getText()).isEqualTo("mirror-others");
    } finally {
      channel.shutdownNow();
    }
  }
}
