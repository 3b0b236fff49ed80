package dev.quiver.distributed.security;

import io.grpc.Context;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;

/**
 * The {@link Role} and user of the gRPC call being served, set by the token check of {@link
 * GrpcSecurity}. A server without any token has no check and treats every caller as {@link
 * Role#CLUSTER}.
 */
public final class Callers {
  static final Context.Key<Role> ROLE = Context.key("quiver-caller-role");
  static final Context.Key<String> USER = Context.key("quiver-caller-user");

  private Callers() {}

  /** The role of the current call. */
  public static Role role() {
    Role r = ROLE.get();
    return r == null ? Role.CLUSTER : r;
  }

  /**
   * The user whose token (of the users file, {@link SecurityConfig#withUsersFile}) the current call
   * carries, or "" when it carries another token or none.
   */
  public static String user() {
    String u = USER.get();
    return u == null ? "" : u;
  }

  /**
   * Refuses the current call unless it carries the cluster credential.
   *
   * @param what what the call does, e.g. "Register (joining the cluster as an executor)"
   * @throws StatusRuntimeException PERMISSION_DENIED naming the call and the flag to use
   */
  public static void requireCluster(String what) {
    if (role() != Role.CLUSTER) {
      throw notCluster(what);
    }
  }

  static StatusRuntimeException notCluster(String what) {
    return Status.PERMISSION_DENIED
        .withDescription(
            "permission denied: "
                + what
                + " needs the cluster credential (the token of --cluster-token-file, which"
                + " executors and the scheduler hold); this call carried a client token")
        .asRuntimeException();
  }
}
