package dev.quiver.distributed.security;

import io.grpc.Status;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateException;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;

/**
 * Names the TLS mistake behind a failed connection: gRPC reports a plaintext client talking to a
 * TLS server, a TLS client talking to a plaintext server and an untrusted server certificate all as
 * {@code UNAVAILABLE} with "io exception" or "Network closed for unknown reason".
 */
public final class TlsDiagnosis {
  private TlsDiagnosis() {}

  /**
   * What went wrong with TLS in a call that ended with {@code status}, as a sentence to append to
   * the error; empty when the failure does not look like a TLS mistake.
   *
   * @param clientTls whether the failing client connected with TLS
   */
  public static String explain(Status status, boolean clientTls) {
    return explain(
        status.getCause(),
        status.getCode() == Status.Code.UNAVAILABLE,
        status.getDescription(),
        clientTls);
  }

  /** As {@link #explain(Status, boolean)}, for an Arrow Flight call. */
  public static String explain(FlightRuntimeException e, boolean clientTls) {
    CallStatus status = e.status();
    return explain(
        status.cause() == null ? e.getCause() : status.cause(),
        status.code() == FlightStatusCode.UNAVAILABLE,
        status.description(),
        clientTls);
  }

  private static String explain(
      Throwable cause, boolean unavailable, String description, boolean clientTls) {
    for (Throwable t = cause; t != null; t = t.getCause()) {
      if (t.getClass().getSimpleName().equals("NotSslRecordException")) {
        return "; the server answered in plaintext, not TLS: connect without TLS (no --tls-ca),"
            + " or start the server with --tls-cert and --tls-key";
      }
      if (t instanceof CertPathValidatorException
          || t instanceof CertificateException
          || t.getClass().getSimpleName().equals("ValidatorException")) {
        return "; the TLS handshake failed because the server's certificate is not trusted by"
            + " the client's CA certificates (--tls-ca): "
            + t.getMessage();
      }
    }
    // Only now the generic TLS failures: they wrap the specific causes above.
    for (Throwable t = cause; t != null; t = t.getCause()) {
      if (t instanceof SSLHandshakeException) {
        return "; the TLS handshake failed: " + t.getMessage();
      }
      if (t instanceof SSLException) {
        return "; TLS failed: " + t.getMessage();
      }
    }
    if (!clientTls
        && unavailable
        && description != null
        && description.contains("Network closed for unknown reason")) {
      return "; the server closed the plaintext connection at once, which is what a TLS server"
          + " does: if it serves TLS, connect with TLS (--tls-ca)";
    }
    return "";
  }
}
