package dev.quiver.distributed.client;

import dev.quiver.binding.errors.DataSourceException;
import dev.quiver.binding.errors.InternalException;
import dev.quiver.binding.errors.ObjectStoreException;
import dev.quiver.binding.errors.QueryCancelledException;
import dev.quiver.binding.errors.QueryTypeException;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.errors.ResourcesExhaustedException;
import dev.quiver.binding.errors.UnsupportedFeatureException;
import dev.quiver.distributed.codec.PlanCodecException;
import dev.quiver.distributed.limits.QueryMemoryExceededException;
import dev.quiver.distributed.limits.QueryTimeoutException;
import dev.quiver.distributed.proto.ErrorInfo;
import dev.quiver.distributed.security.AccessDeniedException;
import java.lang.reflect.Modifier;

/** Turns a remote failure back into the typed exception it was where it happened. */
public final class RemoteErrors {
  private RemoteErrors() {}

  /** The error kind of {@code e} as sent over the wire. */
  public static ErrorInfo toProto(Throwable e) {
    String kind = e instanceof QuiverException q ? kindOf(q) : "InternalException";
    String message =
        e instanceof QuiverException && e.getMessage() != null
            ? e.getMessage()
            : InternalException.describe(e);
    ErrorInfo.Builder b = ErrorInfo.newBuilder().setKind(kind).setMessage(message);
    if (e instanceof ObjectStoreException s) {
      b.setStoreReason(s.reason().name());
    }
    return b.build();
  }

  /**
   * The kind {@code e} travels as: the simple name of its nearest public class, so that a private
   * subclass (a CSV reader's bad value) is rethrown as the public type it extends.
   */
  public static String kindOf(QuiverException e) {
    Class<?> c = e.getClass();
    while (!Modifier.isPublic(c.getModifiers()) && c != QuiverException.class) {
      c = c.getSuperclass();
    }
    return c.getSimpleName();
  }

  /** A typed exception for a job that failed with {@code error}. */
  public static QuiverException toException(String jobId, ErrorInfo error) {
    String message = error.getMessage();
    return switch (error.getKind()) {
      case "DataSourceException" -> new DataSourceException(message);
      case "UnsupportedFeatureException" -> new UnsupportedFeatureException(message);
      case "ObjectStoreException" -> new ObjectStoreException(storeReason(error), message);
      case "ResourcesExhaustedException" -> new ResourcesExhaustedException(message);
      case "QueryTypeException" -> new QueryTypeException(message);
      case "QueryCancelledException" -> new QueryCancelledException(message);
      case "PlanCodecException" -> new PlanCodecException(message);
      case "AccessDeniedException" -> new AccessDeniedException(message);
      case "QueryMemoryExceededException" -> new QueryMemoryExceededException(message);
      case "QueryTimeoutException" -> new QueryTimeoutException(message);
      case "InternalException" -> new InternalException(message, jobId, null);
      default -> new QuiverException("Distributed job " + jobId + " failed: " + message);
    };
  }

  private static ObjectStoreException.Reason storeReason(ErrorInfo error) {
    try {
      return ObjectStoreException.Reason.valueOf(error.getStoreReason());
    } catch (IllegalArgumentException e) {
      return ObjectStoreException.Reason.OTHER;
    }
  }
}
