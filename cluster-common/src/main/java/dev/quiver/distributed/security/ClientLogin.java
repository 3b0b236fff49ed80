package dev.quiver.distributed.security;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * A user name sent with a token: HTTP Basic credentials whose password is the token (what the Arrow
 * Flight SQL JDBC driver sends for {@code user=...&password=...}), or the bearer value a server
 * answers them with ({@link #bearer}), which the client then sends on every call. The server checks
 * the token and whether the name may be used on every call, so the bearer holds no state.
 *
 * @param user the user name sent ("" for none)
 * @param token the token sent with it
 * @param basic whether it came as Basic credentials (answered with the bearer)
 */
record ClientLogin(String user, String token, boolean basic) {
  private static final String PREFIX = "quiver-user.";
  private static final String BASIC = "Basic ";
  private static final String BEARER = "Bearer " + PREFIX;

  /** The login {@code header} carries, or null when it is neither form. */
  static ClientLogin parse(String header) {
    if (header == null) {
      return null;
    }
    try {
      if (header.startsWith(BASIC)) {
        String text =
            new String(
                Base64.getDecoder().decode(header.substring(BASIC.length()).strip()),
                StandardCharsets.UTF_8);
        int colon = text.indexOf(':');
        return colon < 0
            ? null
            : new ClientLogin(text.substring(0, colon), text.substring(colon + 1), true);
      }
      if (header.startsWith(BEARER)) {
        String rest = header.substring(BEARER.length());
        int dot = rest.indexOf('.');
        return dot < 0
            ? null
            : new ClientLogin(
                new String(
                    Base64.getUrlDecoder().decode(rest.substring(0, dot)), StandardCharsets.UTF_8),
                rest.substring(dot + 1),
                false);
      }
    } catch (IllegalArgumentException e) {
      return null; // not base64: no login, so the token check refuses it
    }
    return null;
  }

  /** The bearer value that carries {@code user} with {@code token}. */
  static String bearer(String user, String token) {
    return PREFIX
        + Base64.getUrlEncoder()
            .withoutPadding()
            .encodeToString(user.getBytes(StandardCharsets.UTF_8))
        + "."
        + token;
  }

  @Override
  public String toString() {
    return "ClientLogin[user=" + user + ", token=<redacted>]";
  }
}
