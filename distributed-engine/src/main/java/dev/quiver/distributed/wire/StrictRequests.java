package dev.quiver.distributed.wire;

import com.google.protobuf.InvalidProtocolBufferException;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * Makes a gRPC service answer a request that is not its protobuf message with INVALID_ARGUMENT
 * naming the method and the parse error. grpc-java itself parses requests before any interceptor
 * runs and turns a failure into UNKNOWN "Application error processing RPC", which names nothing.
 */
public final class StrictRequests {

  private static final MethodDescriptor.Marshaller<byte[]> BYTES =
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

  private StrictRequests() {}

  /** {@code service} with requests parsed inside the call, where a failure can be answered. */
  public static ServerServiceDefinition of(ServerServiceDefinition service) {
    return ServerInterceptors.intercept(
        ServerInterceptors.useMarshalledMessages(service, BYTES), new Refuse(service));
  }

  /** Closes the call with INVALID_ARGUMENT when the wrapped handler cannot parse a request. */
  private static final class Refuse implements ServerInterceptor {
    private final ServerServiceDefinition original;

    Refuse(ServerServiceDefinition original) {
      this.original = original;
    }

    @Override
    public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
        ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
      String method = call.getMethodDescriptor().getFullMethodName();
      return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(
          next.startCall(call, headers)) {
        private boolean refused;

        @Override
        public void onMessage(ReqT message) {
          if (refused) {
            return;
          }
          try {
            super.onMessage(message);
          } catch (StatusRuntimeException e) {
            if (!(e.getCause() instanceof InvalidProtocolBufferException bad)) {
              throw e;
            }
            refused = true;
            call.close(
                Status.INVALID_ARGUMENT.withDescription(
                    "the request to "
                        + method
                        + " is not a valid "
                        + requestType(method)
                        + " message: "
                        + bad.getMessage()),
                new Metadata());
          }
        }

        @Override
        public void onHalfClose() {
          if (!refused) {
            super.onHalfClose();
          }
        }
      };
    }

    private String requestType(String fullMethodName) {
      ServerMethodDefinition<?, ?> m = original.getMethod(fullMethodName);
      if (m != null
          && m.getMethodDescriptor().getRequestMarshaller()
              instanceof MethodDescriptor.PrototypeMarshaller<?> p
          && p.getMessagePrototype() != null) {
        return p.getMessagePrototype().getClass().getSimpleName();
      }
      return "request";
    }
  }
}
