package dev.quiver.executor.task;

import dev.quiver.binding.errors.InternalException;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.errors.ResourcesExhaustedException;
import dev.quiver.distributed.client.RemoteErrors;
import dev.quiver.distributed.proto.ErrorInfo;
import dev.quiver.distributed.shuffle.ShuffleFetchException;
import dev.quiver.executor.shuffle.DiskLimitExceededException;
import java.util.Locale;
import java.util.Map;
import org.apache.arrow.memory.OutOfMemoryException;

/** Turns a task's failure into the typed {@link ErrorInfo} a client can rethrow. */
public final class TaskFailures {

  /**
   * The kind of a failure caused by the executor's own work directory (not writable, failing): the
   * scheduler retries the task on another executor and excludes this one for a while.
   */
  public static final String EXECUTOR_DISK = "ExecutorDiskException";

  /** Setting keys whose values are never repeated in an error message. */
  private static final String[] SECRET_WORDS = {
    "secret", "password", "passwd", "token", "credential", "key"
  };

  private TaskFailures() {}

  /**
   * Describes {@code failure} of {@code task} (named as the task manager names it, {@code task
   * job-1/2/0#0}, so the message says "task" once): the kind is the {@link RemoteErrors#kindOf
   * kind} of the binding exception that caused it ({@code InternalException} when none did), and
   * the message has the values of secret-looking {@code settings} masked.
   */
  public static ErrorInfo describe(Throwable failure, String task, Map<String, String> settings) {
    String kind;
    String message;
    QuiverException typed = typedCause(failure);
    if (typed != null) {
      kind = RemoteErrors.kindOf(typed);
      message = typed.getMessage();
    } else {
      // A bug, not a typed error: named with its place (the task manager logs its stack trace).
      InternalException internal = InternalException.of(task, null, failure);
      kind = RemoteErrors.kindOf(internal);
      message = internal.getMessage();
    }
    ErrorInfo.Builder info =
        ErrorInfo.newBuilder()
            .setKind(kind)
            .setMessage(redact(message == null ? kind : message, settings));
    if (typed instanceof dev.quiver.binding.errors.ObjectStoreException store) {
      info.setStoreReason(store.reason().name());
    }
    if (typed instanceof DiskLimitExceededException) {
      // This executor's shortage: the scheduler retries the task elsewhere.
      info.setKind(ResourcesExhaustedException.class.getSimpleName())
          .setRetryable(true)
          .setExecutorDiskFull(true);
    }
    if (typed instanceof SplitFetchException splits && splits.retryable()) {
      info.setRetryable(true);
    }
    if (typed instanceof ShuffleFetchException fetch && fetch.location() != null) {
      // The scheduler re-runs the producer of this partition instead of failing the job.
      info.setRetryable(true).setMissingPartition(fetch.location().id());
    }
    return info.build();
  }

  /** Whether {@code failure} came from an Arrow memory limit. */
  static boolean outOfMemory(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof OutOfMemoryException || t instanceof OutOfMemoryError) {
        return true;
      }
    }
    return false;
  }

  /** The binding exception behind {@code failure}, with Arrow memory limits mapped to one. */
  static QuiverException typedCause(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof OutOfMemoryException || t instanceof OutOfMemoryError) {
        return new ResourcesExhaustedException(
            "Resources exhausted: the task hit the executor's memory limit ("
                + t.getMessage()
                + "); give the executors more memory or run the query with more partitions",
            t);
      }
    }
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof QuiverException q) {
        return q;
      }
    }
    return null;
  }

  /** Replaces the values of secret-looking settings in {@code message} with {@code ***}. */
  static String redact(String message, Map<String, String> settings) {
    String out = message;
    for (Map.Entry<String, String> e : settings.entrySet()) {
      String value = e.getValue();
      if (value != null && value.length() >= 4 && looksSecret(e.getKey())) {
        out = out.replace(value, "***");
      }
    }
    return out;
  }

  private static boolean looksSecret(String key) {
    String k = key.toLowerCase(Locale.ROOT);
    for (String word : SECRET_WORDS) {
      if (k.contains(word)) {
        return true;
      }
    }
    return false;
  }
}
