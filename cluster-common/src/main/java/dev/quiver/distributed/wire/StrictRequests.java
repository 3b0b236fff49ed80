package dev.quiver.distributed.wire;

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
import java.io.InputStream;

/**
 * Makes a gRPC service answer a request it cannot parse with INVALID_ARGUMENT naming the method and
 * the parse error. grpc-java itself parses requests before any interceptor runs and turns a failure
 * into UNKNOWN "Application error processing RPC", which names nothing (and logs a stack trace).
 * Messages pass through as the transport's streams, so nothing is copied: Arrow Flight's zero-copy
 * marshalling of batches keeps working.
 */
public final class StrictRequests {

  /** Passes the transport's stream through unchanged in both directions. */
  private static final MethodDescriptor.Marshaller<InputStream> STREAMS =
      new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(InputStream value) {
          return value;
        }

        @Override
        public InputStream parse(InputStream stream) {
          return stream;
        }
      };

  private StrictRequests() {}

  /** {@code service} with requests parsed inside the call, where a failure can be answered. */
  public static ServerServiceDefinition of(ServerServiceDefinition service) {
    return ServerInterceptors.intercept(
        ServerInterceptors.useMarshalledMessages(service, STREAMS, STREAMS), new Refuse(service));
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
          } catch (RuntimeException e) {
            // Handlers only take the parsed message here (they run at half-close or on their
            // own threads): what fails is the parsing of a malformed request.
            refused = true;
            call.close(
                Status.INVALID_ARGUMENT.withDescription(
                    "the request to "
                        + method
                        + " is not a valid "
                        + requestType(method)
                        + " message: "
                        + rootMessage(e)),
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

    private static String rootMessage(Throwable e) {
      Throwable t = e;
      while (t.getCause() != null && t.getCause() != t) {
        t = t.getCause();
      }
      return t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
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
