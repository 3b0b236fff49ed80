package dev.quiver.distributed.security;

import dev.quiver.binding.errors.QuiverException;
import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.function.Predicate;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;

/**
 * Applies a {@link SecurityConfig} to the servers' HTTP endpoints (health, metrics, the jobs API
 * and web UI): the same certificate as their gRPC port, and the same shared token.
 */
public final class HttpSecurity {
  private HttpSecurity() {}

  /** The JDK TLS context serving the config's certificate chain; the config must have one. */
  public static SSLContext serverSslContext(SecurityConfig security) {
    if (!security.serverTls()) {
      throw new IllegalArgumentException("no server certificate configured");
    }
    try {
      JdkSslContext context =
          (JdkSslContext)
              SslContextBuilder.forServer(
                      new ByteArrayInputStream(security.certChain().bytes()),
                      new ByteArrayInputStream(security.privateKey().bytes()))
                  .sslProvider(SslProvider.JDK)
                  .build();
      return context.context();
    } catch (SSLException | IllegalArgumentException e) {
      throw new QuiverException(
          "Cannot serve HTTPS with the certificate chain in "
              + security.certChain().source()
              + " and the private key in "
              + security.privateKey().source()
              + " (both must be PEM; the key unencrypted PKCS#8): "
              + e.getMessage(),
          e);
    }
  }

  /**
   * Checks an HTTP {@code Authorization} header (may be null) against the config's token: {@code
   * Bearer <token>} as on gRPC, or Basic credentials whose password is the token (so a browser can
   * open the web UI; the user name is ignored). Always true when the config has no token. With a
   * cluster credential only it is accepted: the endpoints are the operators' (the jobs API and web
   * UI show and cancel every client's jobs), not the clients'.
   */
  public static Predicate<String> authorization(SecurityConfig security) {
    if (!security.hasToken()) {
      return header -> true;
    }
    Tokens tokens = new Tokens(security.token());
    return header -> {
      if (header == null) {
        return false;
      }
      if (header.regionMatches(true, 0, "Basic ", 0, 6)) {
        String decoded;
        try {
          decoded =
              new String(
                  Base64.getDecoder().decode(header.substring(6).strip()), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
          return false;
        }
        int colon = decoded.indexOf(':');
        return colon >= 0 && tokens.matches(Tokens.headerValue(decoded.substring(colon + 1)));
      }
      return tokens.matches(header);
    };
  }
}
