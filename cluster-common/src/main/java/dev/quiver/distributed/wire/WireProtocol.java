package dev.quiver.distributed.wire;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;

/** The Quiver wire protocol version and the check every handshake (register, submit) makes. */
public final class WireProtocol {

  /**
   * The protocol version this build speaks; bump when old peers cannot ignore a change. 3: scan
   * splits handed out at run time (an executor ignoring LaunchTaskRequest.split_scans would read
   * splits another task was given). 4: Bloom-filter runtime filters (an executor ignoring
   * LaunchTaskRequest.key_filter_builds would report no filter, and one that does not know
   * BloomFilterExecNode cannot run the filtered plan).
   */
  public static final int VERSION = 4;

  /**
   * Largest message a Quiver server accepts (RESOURCE_EXHAUSTED beyond): room for a stage plan
   * carrying memory tables up to twice the default shipping limit (64 MiB).
   */
  public static final int MAX_MESSAGE_BYTES = 128 << 20;

  /**
   * Largest header list (metadata) a Quiver server accepts, gRPC's own default. Quiver's calls send
   * a few hundred bytes; Flight's servers default to 2 GiB, which let a client with a 50 MB header
   * keep an executor's cores busy decoding it for minutes. A longer list closes the connection
   * before any handler, token check included, runs.
   */
  public static final int MAX_HEADER_LIST_BYTES = 8 << 10;

  private WireProtocol() {}

  /** The Quiver release this build comes from, or "development" when run from classes. */
  public static String softwareVersion() {
    String v = WireProtocol.class.getPackage().getImplementationVersion();
    return v == null ? "development" : v;
  }

  /**
   * Refuses a peer that speaks another protocol version.
   *
   * @param peerVersion the version the peer sent
   * @param peer who the peer is, e.g. "executor exec-1" or "client"
   * @param self who is checking, e.g. "scheduler"
   * @throws StatusRuntimeException FAILED_PRECONDITION naming both versions
   */
  public static void requireCompatible(int peerVersion, String peer, String self) {
    if (peerVersion != VERSION) {
      String sent =
          peerVersion == 0 ? "no protocol version (0)" : "protocol version " + peerVersion;
      throw Status.FAILED_PRECONDITION
          .withDescription(
              peer
                  + " sent "
                  + sent
                  + " but this "
                  + self
                  + " speaks Quiver wire protocol version "
                  + VERSION
                  + "; run the scheduler, executors and clients from the same Quiver release")
          .asRuntimeException();
    }
  }
}
