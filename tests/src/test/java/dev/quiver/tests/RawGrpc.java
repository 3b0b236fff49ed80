package dev.quiver.tests;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.MethodDescriptor;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Iterator;
import java.util.concurrent.TimeUnit;

/** Calls gRPC methods by name with raw request bytes, bypassing the generated stubs. */
final class RawGrpc {
  /** Passes bytes through unchanged in both directions. */
  static final MethodDescriptor.Marshaller<byte[]> BYTES =
      new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
          return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
          try {
            return stream.readAllBytes();
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
      };

  private RawGrpc() {}

  /** A byte-array descriptor of method {@code fullName} (e.g. "quiver.v1.Scheduler/Register"). */
  static MethodDescriptor<byte[], byte[]> method(
      String fullName, MethodDescriptor.MethodType type) {
    return MethodDescriptor.newBuilder(BYTES, BYTES)
        .setFullMethodName(fullName)
        .setType(type)
        .build();
  }

  /**
   * Sends {@code request} to method {@code fullName} and reads every response.
   *
   * @return how many responses the server sent
   * @throws StatusRuntimeException the status the call ended with when not OK
   */
  static int call(Channel channel, String fullName, boolean serverStreaming, byte[] request) {
    CallOptions options = CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS);
    if (!serverStreaming) {
      ClientCalls.blockingUnaryCall(
          channel, method(fullName, MethodDescriptor.MethodType.UNARY), options, request);
      return 1;
    }
    Iterator<byte[]> it =
        ClientCalls.blockingServerStreamingCall(
            channel,
            method(fullName, MethodDescriptor.MethodType.SERVER_STREAMING),
            options,
            request);
    int n = 0;
    while (it.hasNext()) {
      it.next();
      n++;
    }
    return n;
  }
}
