package dev.quiver.distributed.security;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** The {@code authorization: Bearer <token>} header and a constant-time check of it. */
final class Tokens {
  /** The header carrying the token. */
  static final String HEADER = "authorization";

  private static final String SCHEME = "Bearer ";

  /** What servers answer to a call without the right token; it never quotes any token. */
  static final String REJECTED =
      "unauthenticated: missing or invalid cluster token: every call must carry the cluster's"
          + " shared token"
          + " (authorization: Bearer header; configure it with --token-file)";

  private final byte[] expectedDigest;

  Tokens(String token) {
    this.expectedDigest = sha256(token);
  }

  /** The header value a client sends. */
  static String headerValue(String token) {
    return SCHEME + token;
  }

  /**
   * Whether {@code header} (may be null) is exactly {@code Bearer <token>} with the expected
   * token. Both sides are hashed first
   * so the comparison takes the same time whatever the presented token's length or content.
   */
  boolean matches(String header) {
    // Exactly the form clients send: no other spelling of the scheme, no extra spaces.
    if (header == null || !header.startsWith(SCHEME)) {
      return false;
    }
    return MessageDigest.isEqual(expectedDigest, sha256(header.substring(SCHEME.length())));
  }

  private static byte[] sha256(String s) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK provides SHA-256", e);
    }
  }

  @Override
  public String toString() {
    return "Tokens[expected=<redacted>]";
  }
}
