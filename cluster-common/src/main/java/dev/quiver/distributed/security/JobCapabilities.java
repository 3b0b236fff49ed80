package dev.quiver.distributed.security;

import com.google.protobuf.ByteString;
import java.security.MessageDigest;
import java.security.SecureRandom;

/**
 * Job capabilities: 256 random bits the scheduler gives the submitter of a job (and the executors
 * running it). Watching, cancelling and releasing a job, and reading its shuffle output, need it,
 * so another client that knows the job's id (from a log, the web UI) can do none of that.
 * Capabilities are secrets: nothing logs or prints them.
 */
public final class JobCapabilities {
  /** Bytes in a capability (256 bits; the issue asks for at least 128). */
  public static final int BYTES = 32;

  private static final SecureRandom RANDOM = new SecureRandom();

  private JobCapabilities() {}

  /** A fresh capability. */
  public static ByteString newCapability() {
    byte[] b = new byte[BYTES];
    RANDOM.nextBytes(b);
    return ByteString.copyFrom(b);
  }

  /**
   * Whether {@code presented} is {@code expected}, in time independent of where they differ. An
   * empty {@code expected} never matches.
   */
  public static boolean matches(ByteString expected, ByteString presented) {
    if (expected == null || expected.isEmpty() || presented == null) {
      return false;
    }
    return MessageDigest.isEqual(expected.toByteArray(), presented.toByteArray());
  }
}
