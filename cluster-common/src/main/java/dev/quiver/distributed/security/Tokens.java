package dev.quiver.distributed.security;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code authorization: Bearer <token>} header and a constant-time check of it against the
 * client token, the cluster credential and the users' tokens, telling which {@link Role} the caller
 * has and which user it is.
 */
final class Tokens {
  /** The header carrying the token. */
  static final String HEADER = "authorization";

  private static final String SCHEME = "Bearer ";

  /** What servers answer to a call without an accepted token; it never quotes any token. */
  static final String REJECTED =
      "unauthenticated: missing or invalid token: every call must carry the cluster's token"
          + " (authorization: Bearer header; clients configure it with --token-file, executors"
          + " and the scheduler with --cluster-token-file when the cluster has one)";

  /** Digest of the clients' token, or null. */
  private final byte[] clientDigest;

  /** Digest of the cluster credential, or null (then the client token has the cluster role). */
  private final byte[] clusterDigest;

  /** Digest of each user's token, by user name. */
  private final Map<String, byte[]> userDigests = new LinkedHashMap<>();

  /** Checks a single shared token, which grants the cluster role. */
  Tokens(String token) {
    this(token, null);
  }

  /** As {@link #Tokens(String, String)}, also accepting each user's token ({@code users}). */
  Tokens(String clientToken, String clusterToken, Map<String, String> users) {
    this(clientToken, clusterToken);
    users.forEach((user, token) -> userDigests.put(user, sha256(token)));
  }

  /**
   * Checks the client token (may be null) and the cluster credential (may be null; without it the
   * client token grants the cluster role, as the single shared token did before roles).
   */
  Tokens(String clientToken, String clusterToken) {
    this.clientDigest = clientToken == null ? null : sha256(clientToken);
    this.clusterDigest = clusterToken == null ? null : sha256(clusterToken);
  }

  /** The header value a client sends. */
  static String headerValue(String token) {
    return SCHEME + token;
  }

  /** Whether {@code header} carries the client token or the cluster credential. */
  boolean matches(String header) {
    return authenticate(header) != null;
  }

  /**
   * The role {@code header} (may be null) grants, or null when it is not exactly {@code Bearer
   * <token>} with a known token. Both sides are hashed first so the comparison takes the same time
   * whatever the presented token's length or content.
   */
  Role authenticate(String header) {
    // Exactly the form clients send: no other spelling of the scheme, no extra spaces.
    if (header == null || !header.startsWith(SCHEME)) {
      return null;
    }
    byte[] presented = sha256(header.substring(SCHEME.length()));
    boolean cluster = clusterDigest != null && MessageDigest.isEqual(clusterDigest, presented);
    boolean client = clientDigest != null && MessageDigest.isEqual(clientDigest, presented);
    if (cluster) {
      return Role.CLUSTER;
    }
    if (client || userOf(presented) != null) {
      return clusterDigest == null ? Role.CLUSTER : Role.CLIENT;
    }
    return null;
  }

  /**
   * The user whose token {@code header} carries, or null (another token, or none). Every user's
   * digest is compared, so the time taken does not tell which user matched.
   */
  String user(String header) {
    if (header == null || !header.startsWith(SCHEME)) {
      return null;
    }
    return userOf(sha256(header.substring(SCHEME.length())));
  }

  private String userOf(byte[] presented) {
    String found = null;
    for (Map.Entry<String, byte[]> u : userDigests.entrySet()) {
      if (MessageDigest.isEqual(u.getValue(), presented)) {
        found = u.getKey();
      }
    }
    return found;
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
