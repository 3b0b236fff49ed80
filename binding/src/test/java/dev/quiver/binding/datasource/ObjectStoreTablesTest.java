package dev.quiver.binding.datasource;

import static dev.quiver.binding.datasource.ScanTestSupport.ALL_TYPES;
import static dev.quiver.binding.datasource.ScanTestSupport.allTypesBatch;
import static dev.quiver.binding.datasource.ScanTestSupport.expectedRows;
import static dev.quiver.binding.datasource.ScanTestSupport.project;
import static dev.quiver.binding.datasource.ScanTestSupport.readAll;
import static dev.quiver.binding.datasource.ScanTestSupport.readerOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.errors.DataSourceException;
import dev.quiver.binding.errors.ObjectStoreException;
import dev.quiver.binding.io.ObjectReader;
import dev.quiver.binding.io.ObjectStore;
import dev.quiver.binding.io.ObjectStores;
import dev.quiver.binding.io.PendingObject;
import dev.quiver.binding.io.S3ProxyServer;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.settings.SessionConfig;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPOutputStream;
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
 * Parquet and CSV tables in S3, served by a real S3-API server (S3Proxy on loopback, signed
 * requests): reads equal local reads, writes publish only complete objects, and every failure is a
 * typed error naming the URI and never the secret.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ObjectStoreTablesTest {
  private S3ProxyServer s3;
  private SessionConfig config;
  @TempDir Path tmp;
  private RootAllocator root;
  private BufferAllocator allocator;

  @BeforeAll
  void startS3() throws Exception {
    s3 = S3ProxyServer.start();
    s3.createBucket("data");
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
    allocator = root.newChildAllocator("query", 0, Long.MAX_VALUE);
  }

  @AfterEach
  void tearDown() {
    assertThat(allocator.getAllocatedMemory()).isZero();
    allocator.close();
    root.close();
  }

  private ArrowReader rows(long count, int batchRows, List<VectorSchemaRoot> keep) {
    for (long id = 0; id < count; id += batchRows) {
      keep.add(allTypesBatch(id, (int) Math.min(batchRows, count - id), allocator));
    }
    return readerOf(ALL_TYPES, keep, allocator);
  }

  private long writeParquet(String location, long count, long fileBytes) throws IOException {
    List<VectorSchemaRoot> batches = new ArrayList<>();
    try (ArrowReader reader = rows(count, 500, batches)) {
      return FileWriters.writeParquet(reader, location, config, allocator, fileBytes);
    } finally {
      batches.forEach(VectorSchemaRoot::close);
    }
  }

  private static ScanRequest request(int[] projection, int partitions, SessionConfig config) {
    return new ScanRequest(
        projection, List.of(), OptionalLong.empty(), partitions, config.copy().withBatchSize(300));
  }

  @Test
  void parquetWrittenToS3ReadsBackLikeLocalFiles() throws IOException {
    String uri = "s3://data/all-types";
    assertThat(writeParquet(uri, 5000, 40_000)).isEqualTo(5000);
    ParquetTable table = ParquetTable.open(uri, config);
    assertThat(table.files()).hasSizeGreaterThan(1).allMatch(f -> f.startsWith(uri + "/part-"));
    assertThat(table.schema()).isEqualTo(ALL_TYPES);
    for (int partitions : new int[] {1, 3, 16}) {
      ExecutionPlan scan = table.scan(request(null, partitions, config));
      assertThat(readAll(scan, allocator, config))
          .as("partitions=" + partitions)
          .containsExactlyInAnyOrderElementsOf(expectedRows(0, 5000));
    }
    ExecutionPlan projected = table.scan(request(new int[] {4, 0}, 4, config));
    assertThat(readAll(projected, allocator, config))
        .containsExactlyInAnyOrderElementsOf(project(expectedRows(0, 5000), 4, 0));
    assertThat(projected.metrics().fetchedBytes()).isPositive();
    // One file by its URI.
    ParquetTable one = ParquetTable.open(table.files().get(0), config);
    assertThat(one.files()).containsExactly(table.files().get(0));
  }

  @Test
  void anEndpointWithoutARegionNeverProbesInstanceMetadata() throws Exception {
    // Instance metadata answers here, counting the connections; before, the region chain asked it.
    String previous = System.getProperty("aws.ec2MetadataServiceEndpoint");
    java.util.concurrent.atomic.AtomicInteger probes =
        new java.util.concurrent.atomic.AtomicInteger();
    try (java.net.ServerSocket metadata = new java.net.ServerSocket(0)) {
      Thread counter =
          new Thread(
              () -> {
                while (!metadata.isClosed()) {
                  try (java.net.Socket probe = metadata.accept()) {
                    probes.incrementAndGet();
                  } catch (IOException e) {
                    return;
                  }
                }
              });
      counter.setDaemon(true);
      counter.start();
      System.setProperty(
          "aws.ec2MetadataServiceEndpoint", "http://127.0.0.1:" + metadata.getLocalPort());
      SessionConfig noRegion =
          new SessionConfig()
              .set(SessionConfig.S3_ENDPOINT, s3.endpoint())
              .set(SessionConfig.S3_ACCESS_KEY_ID, s3.accessKey())
              .set(SessionConfig.S3_SECRET_ACCESS_KEY, s3.secret());
      try (dev.quiver.binding.SessionContext ctx =
          new dev.quiver.binding.SessionContext(noRegion)) {
        ctx.sql("COPY (SELECT 7 AS x) TO 's3://data/no-region.csv'");
        List<VectorSchemaRoot> rows = ctx.sql("SELECT x FROM 's3://data/no-region.csv'").collect();
        try {
          assertThat(rows.get(0).getVector(0).getObject(0)).isEqualTo(7L);
        } finally {
          rows.forEach(VectorSchemaRoot::close);
        }
      }
    } finally {
      if (previous == null) {
        System.clearProperty("aws.ec2MetadataServiceEndpoint");
      } else {
        System.setProperty("aws.ec2MetadataServiceEndpoint", previous);
      }
    }
    assertThat(probes.get()).as("connections to instance metadata").isZero();
  }

  @Test
  void emptyResultWrittenToS3ReadsBackEmpty() throws IOException {
    String uri = "s3://data/empty";
    assertThat(writeParquet(uri, 0, 40_000)).isZero();
    ParquetTable table = ParquetTable.open(uri, config);
    assertThat(table.schema()).isEqualTo(ALL_TYPES);
    assertThat(readAll(table.scan(request(null, 2, config)), allocator, config)).isEmpty();
  }

  @Test
  void csvInS3PlainAndCompressed() throws IOException {
    String uri = "s3://data/csv-out";
    List<VectorSchemaRoot> batches = new ArrayList<>();
    try (ArrowReader reader = rows(700, 200, batches)) {
      assertThat(FileWriters.writeCsv(reader, uri, config, ',')).isEqualTo(700);
    } finally {
      batches.forEach(VectorSchemaRoot::close);
    }
    CsvTable table = CsvTable.open(uri, ALL_TYPES, CsvOptions.DEFAULT, config);
    assertThat(readAll(table.scan(request(null, 2, config)), allocator, config))
        .containsExactlyInAnyOrderElementsOf(expectedRows(0, 700));
    // The same file gzip-compressed, found by its .csv.gz name and read inferring types.
    Path gz = tmp.resolve("t.csv.gz");
    byte[] text;
    try (var in = ObjectStores.forLocation(uri, config).openStream(uri + "/part-0.csv")) {
      text = in.readAllBytes();
    }
    try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(gz))) {
      out.write(text);
    }
    String gzUri = s3.put(gz, "data", "csv-gz/t.csv.gz");
    CsvTable compressed = CsvTable.open("s3://data/csv-gz", ALL_TYPES, CsvOptions.DEFAULT, config);
    assertThat(compressed.files()).containsExactly(gzUri);
    assertThat(readAll(compressed.scan(request(null, 1, config)), allocator, config))
        .containsExactlyInAnyOrderElementsOf(expectedRows(0, 700));
  }

  @Test
  void multipartUploadIsInvisibleUntilCommitted() throws IOException {
    ObjectStore store = ObjectStores.forLocation("s3://data/mpu", config);
    byte[] data = new byte[20 << 20];
    new Random(7).nextBytes(data);
    PendingObject pending = store.create("s3://data/mpu/big.bin");
    pending.write(data, 0, data.length);
    pending.close(); // every part uploaded
    assertThat(store.isEmpty("s3://data/mpu")).as("nothing visible before commit").isTrue();
    pending.commit();
    assertThat(store.list("s3://data/mpu")).hasSize(1);
    try (ObjectReader in = store.open("s3://data/mpu/big.bin", -1)) {
      assertThat(in.size()).isEqualTo(data.length);
      List<ObjectReader.Slice> slices =
          in.readRanges(
              List.of(
                  new ObjectReader.Range(10_000_000, 1000),
                  new ObjectReader.Range(5, 100),
                  new ObjectReader.Range(10_500_000, 4096),
                  new ObjectReader.Range(19_000_000, 77)));
      assertSlice(slices.get(0), data, 10_000_000, 1000);
      assertSlice(slices.get(1), data, 5, 100);
      assertSlice(slices.get(2), data, 10_500_000, 4096);
      assertSlice(slices.get(3), data, 19_000_000, 77);
    }
    PendingObject dropped = store.create("s3://data/mpu-aborted/big.bin");
    dropped.write(data, 0, data.length);
    dropped.close();
    dropped.abort();
    assertThat(store.isEmpty("s3://data/mpu-aborted")).isTrue();
  }

  @Test
  void localRangesAreReadIntoTheCallersBuffersWhenLargeEnough() throws IOException {
    byte[] data = new byte[1 << 16];
    new Random(11).nextBytes(data);
    Path file = tmp.resolve("ranges.bin");
    Files.write(file, data);
    String uri = file.toString();
    try (ObjectReader in = ObjectStores.forLocation(uri, config).open(uri, -1)) {
      byte[] reused = new byte[5000];
      byte[][] buffers = {reused, null};
      List<ObjectReader.Slice> first =
          in.readRanges(
              List.of(new ObjectReader.Range(100, 4000), new ObjectReader.Range(9000, 300)),
              buffers);
      assertThat(first.get(0).data()).isSameAs(reused);
      assertSlice(first.get(0), data, 100, 4000);
      assertSlice(first.get(1), data, 9000, 300);
      assertThat(buffers[1]).isSameAs(first.get(1).data()).hasSizeGreaterThanOrEqualTo(300);
      // The next call overwrites the same arrays; one too small for its range is replaced.
      List<ObjectReader.Slice> second =
          in.readRanges(
              List.of(new ObjectReader.Range(20_000, 4900), new ObjectReader.Range(40_000, 6000)),
              buffers);
      assertThat(second.get(0).data()).isSameAs(reused);
      assertSlice(second.get(0), data, 20_000, 4900);
      assertSlice(second.get(1), data, 40_000, 6000);
      assertThat(buffers[1]).isSameAs(second.get(1).data());
      assertThat(in.fetchedBytes()).isEqualTo(4000 + 300 + 4900 + 6000);
      assertThatThrownBy(
              () -> in.readRanges(List.of(new ObjectReader.Range(data.length - 10, 20)), buffers))
          .isInstanceOf(ObjectStoreException.class)
          .hasMessageContaining("truncated");
    }
  }

  private static void assertSlice(ObjectReader.Slice s, byte[] data, int offset, int length) {
    assertThat(s.length()).isEqualTo(length);
    for (int i = 0; i < length; i++) {
      if (s.data()[s.start() + i] != data[offset + i]) {
        throw new AssertionError("byte " + (offset + i) + " differs");
      }
    }
  }

  @Test
  void failedWriteLeavesNoObject() {
    String uri = "s3://data/failed-write";
    List<VectorSchemaRoot> batches = new ArrayList<>();
    try (ArrowReader good = rows(4000, 500, batches);
        ArrowReader failing = failingAfter(good, 5)) {
      assertThatThrownBy(() -> FileWriters.writeParquet(failing, uri, config, allocator, 20_000))
          .isInstanceOf(DataSourceException.class)
          .hasMessageContaining(uri);
    } catch (IOException e) {
      throw new AssertionError(e);
    } finally {
      batches.forEach(VectorSchemaRoot::close);
    }
    assertThat(ObjectStores.forLocation(uri, config).isEmpty(uri)).isTrue();
  }

  /** A reader passing {@code source}'s first {@code batches} batches on, then failing. */
  private ArrowReader failingAfter(ArrowReader source, int batches) throws IOException {
    Schema schema = source.getVectorSchemaRoot().getSchema();
    return new ArrowReader(allocator) {
      private int n;

      @Override
      public boolean loadNextBatch() throws IOException {
        if (n++ == batches) {
          throw new IOException("source failed halfway");
        }
        if (!source.loadNextBatch()) {
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

  @Test
  void failuresAreTypedAndNameTheUriButNotTheSecret() throws IOException {
    writeParquet("s3://data/good", 100, Long.MAX_VALUE);
    List<Throwable> errors = new ArrayList<>();

    errors.add(
        assertThatThrownBy(() -> ParquetTable.open("s3://no-such-bucket/t", config))
            .isInstanceOf(ObjectStoreException.class)
            .hasMessageContaining("s3://no-such-bucket/t")
            .satisfies(e -> assertReason(e, ObjectStoreException.Reason.NOT_FOUND))
            .actual());
    errors.add(
        assertThatThrownBy(() -> ParquetTable.open("s3://data/no-such-key", config))
            .isInstanceOf(ObjectStoreException.class)
            .hasMessageContaining("s3://data/no-such-key")
            .satisfies(e -> assertReason(e, ObjectStoreException.Reason.NOT_FOUND))
            .actual());
    SessionConfig wrongSecret =
        config.copy().set(SessionConfig.S3_SECRET_ACCESS_KEY, "wrong-" + s3.secret());
    errors.add(
        assertThatThrownBy(() -> ParquetTable.open("s3://data/good", wrongSecret))
            .isInstanceOf(ObjectStoreException.class)
            .hasMessageContaining("s3://data/good")
            .satisfies(e -> assertReason(e, ObjectStoreException.Reason.ACCESS_DENIED))
            .actual());
    SessionConfig unreachable = config.copy().set(SessionConfig.S3_ENDPOINT, "http://127.0.0.1:1");
    long start = System.nanoTime();
    errors.add(
        assertThatThrownBy(() -> ParquetTable.open("s3://data/good", unreachable))
            .isInstanceOf(ObjectStoreException.class)
            .hasMessageContaining("s3://data/good")
            .hasMessageContaining("http://127.0.0.1:1")
            .satisfies(e -> assertReason(e, ObjectStoreException.Reason.UNREACHABLE))
            .actual());
    assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start)).isLessThan(60);

    // A truncated object: cut a valid file in half under the same name.
    ParquetTable good = ParquetTable.open("s3://data/good", config);
    String file = good.files().get(0);
    byte[] whole;
    try (var in = ObjectStores.forLocation(file, config).openStream(file)) {
      whole = in.readAllBytes();
    }
    Path cut = tmp.resolve("cut.parquet");
    Files.write(cut, java.util.Arrays.copyOf(whole, whole.length / 2));
    s3.put(cut, "data", "truncated/part-0.parquet");
    errors.add(
        assertThatThrownBy(() -> ParquetTable.open("s3://data/truncated", config))
            .isInstanceOf(DataSourceException.class)
            .hasMessageContaining("s3://data/truncated/part-0.parquet")
            .actual());
    // Truncated after the table was opened: the scan's reads come up short.
    s3.put(cut, "data", "good/" + file.substring(file.lastIndexOf('/') + 1));
    errors.add(
        assertThatThrownBy(() -> readAll(good.scan(request(null, 1, config)), allocator, config))
            .isInstanceOf(DataSourceException.class)
            .hasMessageContaining(file)
            .actual());
    for (Throwable e : errors) {
      for (Throwable t = e; t != null; t = t.getCause()) {
        assertThat(String.valueOf(t.getMessage())).doesNotContain(s3.secret());
      }
      assertThat(e.toString()).doesNotContain(s3.secret());
    }
    // The store still serves a good table right after.
    writeParquet("s3://data/good-after", 100, Long.MAX_VALUE);
    ParquetTable after = ParquetTable.open("s3://data/good-after", config);
    assertThat(readAll(after.scan(request(null, 2, config)), allocator, config))
        .containsExactlyInAnyOrderElementsOf(expectedRows(0, 100));
  }

  private static void assertReason(Throwable e, ObjectStoreException.Reason reason) {
    assertThat(((ObjectStoreException) e).reason()).as(e.getMessage()).isEqualTo(reason);
  }
}
