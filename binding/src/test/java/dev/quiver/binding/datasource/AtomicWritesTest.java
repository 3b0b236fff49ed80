package dev.quiver.binding.datasource;

import static dev.quiver.binding.datasource.ScanTestSupport.ALL_TYPES;
import static dev.quiver.binding.datasource.ScanTestSupport.allTypesBatch;
import static dev.quiver.binding.datasource.ScanTestSupport.expectedRows;
import static dev.quiver.binding.datasource.ScanTestSupport.readAll;
import static dev.quiver.binding.datasource.ScanTestSupport.readerOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.errors.DataSourceException;
import dev.quiver.binding.errors.ObjectStoreException;
import dev.quiver.binding.io.ObjectStores;
import dev.quiver.binding.io.S3ProxyServer;
import dev.quiver.binding.settings.SessionConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A write of several Parquet files publishes all of them or none, locally and in S3 (S3Proxy): when
 * publishing fails in the middle (something else writes into the target folder meanwhile; an upload
 * is aborted from outside before its completion) nothing of the write is visible, nothing is left
 * staged, and the error names the location. Before publishing, every file is written but invisible
 * (in S3: an upload in progress).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AtomicWritesTest {
  @TempDir static Path tmp;
  private S3ProxyServer s3;
  private SessionConfig config;
  private RootAllocator root;
  private BufferAllocator allocator;

  @BeforeAll
  void startS3() throws Exception {
    s3 = S3ProxyServer.start();
    s3.createBucket("out");
    config = s3.configure(new SessionConfig());
  }

  @AfterAll
  void stopS3() {
    if (s3 != null) {
      s3.close();
    }
  }

  @BeforeEach
  void setUp() {
    root = new RootAllocator();
    allocator = root.newChildAllocator("write", 0, Long.MAX_VALUE);
  }

  @AfterEach
  void tearDown() {
    assertThat(allocator.getAllocatedMemory()).isZero();
    allocator.close();
    root.close();
  }

  /**
   * Writes 4000 rows in files of about 20 KB (several files), running {@code atEnd} when the input
   * is exhausted, i.e. after every earlier file was written and before the write publishes.
   */
  private long write(String location, Runnable atEnd) throws IOException {
    List<VectorSchemaRoot> batches = new ArrayList<>();
    for (long id = 0; id < 4000; id += 500) {
      batches.add(allTypesBatch(id, 500, allocator));
    }
    try (ArrowReader source = readerOf(ALL_TYPES, batches, allocator);
        ArrowReader reader = endingWith(source, atEnd)) {
      return FileWriters.writeParquet(reader, location, config, allocator, 20_000);
    } finally {
      batches.forEach(VectorSchemaRoot::close);
    }
  }

  @Test
  void localWriteWhosePublishFailsInTheMiddleLeavesNothing() throws IOException {
    Path dir = tmp.resolve("local-clash");
    Path intruder = dir.resolve("part-1.parquet").resolve("other-writer.txt");
    assertThatThrownBy(
            () ->
                write(
                    dir.toString(),
                    () -> {
                      try {
                        // Another writer's folder where this write's second file goes.
                        Files.createDirectories(intruder.getParent());
                        Files.writeString(intruder, "not ours");
                      } catch (IOException e) {
                        throw new AssertionError(e);
                      }
                    }))
        .isInstanceOf(DataSourceException.class)
        .hasMessageContaining(dir.toString());
    try (Stream<Path> all = Files.walk(dir)) {
      assertThat(all.filter(Files::isRegularFile).toList())
          .as("only the other writer's file")
          .containsExactly(intruder);
    }
    try (Stream<Path> beside = Files.list(tmp)) {
      assertThat(beside.map(p -> p.getFileName().toString()))
          .as("no staging folder left")
          .noneMatch(n -> n.startsWith(".quiver"));
    }
  }

  @Test
  void localWriteIsInvisibleUntilCompleteAndThenWhole() throws IOException {
    Path dir = tmp.resolve("local-ok");
    boolean[] seen = new boolean[1];
    long rows =
        write(
            dir.toString(),
            () -> {
              seen[0] = true;
              try (Stream<Path> files = Files.exists(dir) ? Files.walk(dir) : Stream.of()) {
                assertThat(files.filter(Files::isRegularFile).toList())
                    .as("nothing at the target before publishing")
                    .isEmpty();
              } catch (IOException e) {
                throw new AssertionError(e);
              }
            });
    assertThat(seen[0]).isTrue();
    assertThat(rows).isEqualTo(4000);
    ParquetTable table = ParquetTable.open(dir.toString());
    assertThat(table.files()).hasSizeGreaterThan(2);
    assertThat(readAll(table.scan(request()), allocator, config))
        .containsExactlyInAnyOrderElementsOf(expectedRows(0, 4000));
    try (Stream<Path> beside = Files.list(tmp)) {
      assertThat(beside.map(p -> p.getFileName().toString()))
          .noneMatch(n -> n.startsWith(".quiver"));
    }
  }

  @Test
  void s3WriteWhosePublishFailsInTheMiddleLeavesNothing() throws IOException {
    String uri = "s3://out/clash";
    List<String> uploads = new ArrayList<>();
    assertThatThrownBy(
            () ->
                write(
                    uri,
                    () -> {
                      assertThat(ObjectStores.forLocation(uri, config).isEmpty(uri))
                          .as("nothing visible before publishing")
                          .isTrue();
                      try (var c = s3.client()) {
                        var inProgress =
                            c.listMultipartUploads(b -> b.bucket("out").prefix("clash/")).uploads();
                        inProgress.forEach(u -> uploads.add(u.key()));
                        // Another process (or a lifecycle rule) aborts the second file's upload.
                        var second =
                            inProgress.stream()
                                .filter(u -> u.key().equals("clash/part-1.parquet"))
                                .findFirst()
                                .orElseThrow();
                        c.abortMultipartUpload(
                            b -> b.bucket("out").key(second.key()).uploadId(second.uploadId()));
                      }
                    }))
        .isInstanceOf(ObjectStoreException.class)
        .hasMessageContaining(uri + "/part-1.parquet")
        .satisfies(
            e ->
                assertThat(((ObjectStoreException) e).reason())
                    .isEqualTo(ObjectStoreException.Reason.NOT_FOUND));
    assertThat(uploads)
        .as("the files written before the input ended, uploaded but not published")
        .contains("clash/part-0.parquet", "clash/part-1.parquet", "clash/part-2.parquet");
    assertThat(s3.keys("out", "clash")).as("nothing published").isEmpty();
    try (var c = s3.client()) {
      assertThat(c.listMultipartUploads(b -> b.bucket("out").prefix("clash/")).uploads())
          .as("every upload aborted")
          .isEmpty();
    }
    // The prefix takes a new write at once.
    assertThat(write(uri, () -> {})).isEqualTo(4000);
    ParquetTable table = ParquetTable.open(uri, config);
    assertThat(table.files()).hasSizeGreaterThan(2);
    assertThat(readAll(table.scan(request()), allocator, config))
        .containsExactlyInAnyOrderElementsOf(expectedRows(0, 4000));
  }

  private ScanRequest request() {
    return new ScanRequest(
        null, List.of(), OptionalLong.empty(), 3, config.copy().withBatchSize(300));
  }

  /** Passes {@code source}'s batches on and runs {@code atEnd} once it is exhausted. */
  private ArrowReader endingWith(ArrowReader source, Runnable atEnd) throws IOException {
    Schema schema = source.getVectorSchemaRoot().getSchema();
    return new ArrowReader(allocator) {
      private boolean ended;

      @Override
      public boolean loadNextBatch() throws IOException {
        if (!source.loadNextBatch()) {
          if (!ended) {
            ended = true;
            atEnd.run();
          }
          return false;
        }
        VectorSchemaRoot from = source.getVectorSchemaRoot();
        VectorSchemaRoot to = getVectorSchemaRoot();
        for (int i = 0; i < from.getFieldVectors().size(); i++) {
          from.getVector(i).makeTransferPair(to.getVector(i)).transfer();
        }
        to.setRowCount(from.getRowCount());
        return true;
      }

      @Override
      public long bytesRead() {
        return 0;
      }

      @Override
      protected void closeReadSource() {}

      @Override
      protected Schema readSchema() {
        return schema;
      }
    };
  }
}
