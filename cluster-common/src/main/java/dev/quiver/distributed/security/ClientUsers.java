package dev.quiver.distributed.security;

/** Whom a Flight server's calls run as, when they carry a user name besides the token. */
public enum ClientUsers {
  /**
   * The token's user (of {@code --users-file}); a call naming another user (Basic credentials whose
   * password is the token) is refused.
   */
  FROM_TOKEN,
  /**
   * The user name the call sends (Basic credentials whose password is an accepted token), else the
   * token's user: the server sits behind a front end that authenticates its own users ({@code
   * quiver serve --trust-client-user}).
   */
  TRUSTED
}
