package dev.quiver.tests;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.settings.SessionConfig;

/**
 * A process that writes a Parquet table to S3 for {@link S3TpchTest} to kill halfway: {@code
 * S3WriteChild SOURCE_FOLDER TARGET_URI}, credentials and endpoint from the AWS environment.
 */
public final class S3WriteChild {
  private S3WriteChild() {}

  public static void main(String[] args) {
    // One partition: one file, large enough to go up as a multipart upload.
    try (SessionContext ctx = new SessionContext(new SessionConfig().withTargetPartitions(1))) {
      ctx.registerParquet("source", args[0]);
      System.out.println("writing");
      System.out.flush();
      ctx.sql("SELECT * FROM source UNION ALL SELECT * FROM source").writeParquet(args[1]);
      System.out.println("written");
    }
  }
}
