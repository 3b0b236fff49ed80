package dev.quiver.executor.shuffle;

import dev.quiver.distributed.security.SecurityConfig;
import dev.quiver.distributed.transport.SameProcessServers;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The shuffle stores of this process's executors (an embedded cluster), by executor id: a task
 * reads another in-process executor's output straight from that executor's store, as it reads its
 * own, instead of through the other's Arrow Flight server over loopback TCP (serializing, copying
 * and crossing event loops for batches already in this process's memory). As with {@link
 * SameProcessServers}, only executors serving plaintext without a token take part, and a reader
 * still presents the job's capability, which the store checks as a DoGet would. Thread-safe.
 */
public final class SameProcessStores {
  private static final Map<String, ShuffleStore> STORES = new ConcurrentHashMap<>();

  private SameProcessStores() {}

  /** Withdraws a store {@link #register} made readable. */
  @FunctionalInterface
  public interface Registration extends AutoCloseable {
    @Override
    void close();
  }

  /**
   * Makes {@code store}, executor {@code executorId}'s, readable by this process's other executors;
   * does nothing when {@code security} asks for TLS or a token, or another store holds the id.
   */
  public static Registration register(
      String executorId, ShuffleStore store, SecurityConfig security) {
    if (!SameProcessServers.mirrors(security) || STORES.putIfAbsent(executorId, store) != null) {
      return () -> {};
    }
    return () -> STORES.remove(executorId, store);
  }

  /**
   * The store of executor {@code executorId} when it runs in this process and registered, else
   * null.
   */
  public static ShuffleStore find(String executorId) {
    return STORES.get(executorId);
  }
}
