package dev.quiver.binding.io;

import dev.quiver.binding.errors.ObjectStoreException;
import dev.quiver.binding.errors.ObjectStoreException.Reason;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain;
import software.amazon.awssdk.regions.providers.SystemSettingsRegionProvider;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Objects in S3 or an S3-compatible store, through the AWS SDK v2 with its Apache 5 HTTP client (no
 * Netty beside Arrow Flight's). Reads are ranged GETs; {@link ObjectReader#readRanges} merges
 * ranges less than {@link #MERGE_GAP} apart and fetches up to {@link #FETCH_THREADS} at once
 * process-wide. The SDK retries throttling, 5xx and connection failures with backoff. Writes are
 * multipart uploads whose parts are all uploaded when the object is closed, so that commit (the
 * upload's completion) only publishes: several objects are then published within a few short
 * requests ({@link ObjectStore#publishAll}).
 */
final class S3ObjectStore implements ObjectStore {
  /** Ranges closer than this are fetched as one GET (fewer requests beat a few wasted bytes). */
  static final long MERGE_GAP = 1L << 20;

  /** Largest merged GET. */
  static final long MAX_MERGED = 32L << 20;

  /** Bytes per multipart-upload part (S3's minimum is 5 MiB). */
  static final int PART_BYTES = 8 << 20;

  /** Ranged GETs in flight at once in this process. */
  static final int FETCH_THREADS = 32;

  private static final ExecutorService FETCHERS = fetchers();

  private final S3Settings settings;
  private final S3Client client;

  S3ObjectStore(S3Settings settings) {
    this.settings = settings;
    this.client = client(settings);
  }

  private static ExecutorService fetchers() {
    AtomicInteger n = new AtomicInteger();
    return Executors.newFixedThreadPool(
        FETCH_THREADS,
        r -> {
          Thread t = new Thread(r, "quiver-s3-fetch-" + n.incrementAndGet());
          t.setDaemon(true);
          return t;
        });
  }

  private static S3Client client(S3Settings s) {
    S3ClientBuilder b =
        S3Client.builder()
            .httpClientBuilder(
                Apache5HttpClient.builder()
                    .maxConnections(FETCH_THREADS * 2)
                    .connectionTimeout(Duration.ofSeconds(5))
                    .socketTimeout(Duration.ofSeconds(60)))
            .overrideConfiguration(
                c ->
                    c.retryStrategy(
                        AwsRetryStrategy.standardRetryStrategy().toBuilder()
                            .maxAttempts(4)
                            .build()))
            .region(region(s))
            .forcePathStyle(s.pathStyle())
            .credentialsProvider(credentials(s));
    if (s.endpoint() != null) {
      b.endpointOverride(URI.create(s.endpoint()));
      // S3-compatible stores do not all accept the newer flexible checksums.
      b.requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED);
      b.responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED);
    }
    return b.build();
  }

  private static Region region(S3Settings s) {
    if (s.region() != null) {
      return Region.of(s.region());
    }
    if (s.endpoint() != null) {
      // An S3-compatible store (MinIO, S3Proxy, ...) mostly accepts any region. The SDK's chain
      // would end in probing EC2 instance metadata, which off-cloud takes seconds to fail; only
      // its quick sources (aws.region, AWS_REGION) are asked.
      try {
        return new SystemSettingsRegionProvider().getRegion();
      } catch (SdkClientException e) {
        return Region.US_EAST_1;
      }
    }
    try {
      return new DefaultAwsRegionProviderChain().getRegion();
    } catch (SdkClientException e) {
      return Region.US_EAST_1; // S3-compatible stores mostly accept any region
    }
  }

  private static AwsCredentialsProvider credentials(S3Settings s) {
    if (!s.hasStaticCredentials()) {
      return DefaultCredentialsProvider.builder().build();
    }
    return StaticCredentialsProvider.create(
        s.sessionToken() == null
            ? AwsBasicCredentials.create(s.accessKeyId(), s.secretAccessKey())
            : AwsSessionCredentials.create(s.accessKeyId(), s.secretAccessKey(), s.sessionToken()));
  }

  @Override
  public List<StoredObject> list(String location) {
    S3Location loc = S3Location.parse(location);
    List<StoredObject> found = listUnder(loc);
    if (found.isEmpty()) {
      throw new ObjectStoreException(
          Reason.NOT_FOUND,
          "No object at or under "
              + loc
              + " (bucket "
              + loc.bucket()
              + " exists); check the prefix");
    }
    return found;
  }

  /** The object at {@code loc} alone, or the objects below it as a folder; may be empty. */
  private List<StoredObject> listUnder(S3Location loc) {
    List<StoredObject> found = new ArrayList<>();
    StoredObject exact = null;
    try {
      String token = null;
      do {
        String t = token;
        ListObjectsV2Response page =
            client.listObjectsV2(
                r -> r.bucket(loc.bucket()).prefix(loc.key()).continuationToken(t));
        for (S3Object o : page.contents()) {
          String location = "s3://" + loc.bucket() + "/" + o.key();
          if (!loc.key().isEmpty() && o.key().equals(loc.key())) {
            exact = new StoredObject(location, o.size(), o.eTag());
          } else if ((loc.key().isEmpty() || o.key().startsWith(loc.folderPrefix()))
              && !o.key().endsWith("/")) {
            found.add(new StoredObject(location, o.size(), o.eTag()));
          }
        }
        token = Boolean.TRUE.equals(page.isTruncated()) ? page.nextContinuationToken() : null;
      } while (token != null);
    } catch (SdkException e) {
      throw failure("list", loc.toString(), e);
    }
    if (exact != null) {
      return List.of(exact);
    }
    found.sort(Comparator.comparing(StoredObject::location));
    return found;
  }

  @Override
  public boolean isEmpty(String location) {
    return listUnder(S3Location.parse(location)).isEmpty();
  }

  @Override
  public ObjectReader open(String location, long size, String version) {
    S3Location loc = S3Location.parse(location);
    long known = size;
    String etag = version;
    if (known < 0) {
      try {
        HeadObjectResponse head =
            client.headObject(r -> r.bucket(loc.bucket()).key(loc.key()).ifMatch(version));
        known = head.contentLength();
        etag = head.eTag();
      } catch (SdkException e) {
        throw failure("open", loc.toString(), e);
      }
    }
    return new S3Reader(loc, known, etag);
  }

  @Override
  public InputStream openStream(String location) {
    S3Location loc = S3Location.parse(location);
    try {
      ResponseInputStream<GetObjectResponse> in =
          client.getObject(r -> r.bucket(loc.bucket()).key(loc.key()));
      return new S3Stream(loc, in);
    } catch (SdkException e) {
      throw failure("read", loc.toString(), e);
    }
  }

  @Override
  public PendingObject create(String location) {
    return new S3Pending(S3Location.parse(location));
  }

  @Override
  public PendingObject upload(Path file, String location) {
    S3Pending pending = new S3Pending(S3Location.parse(location));
    try (InputStream in = Files.newInputStream(file)) {
      in.transferTo(pending);
      pending.close();
      return pending;
    } catch (IOException | RuntimeException e) {
      pending.abort();
      if (e instanceof ObjectStoreException o) {
        throw o;
      }
      throw new ObjectStoreException(
          Reason.OTHER, "Cannot upload " + file + " to " + location + ": " + e.getMessage(), e);
    }
  }

  @Override
  public void delete(String location) {
    S3Location loc = S3Location.parse(location);
    try {
      client.deleteObject(r -> r.bucket(loc.bucket()).key(loc.key()));
    } catch (SdkException e) {
      throw failure("delete", loc.toString(), e);
    }
  }

  @Override
  public String resolve(String parent, String child) {
    S3Location p = S3Location.parse(parent);
    return "s3://" + p.bucket() + "/" + p.folderPrefix() + child;
  }

  @Override
  public boolean isLocal() {
    return false;
  }

  @Override
  public String toString() {
    return "S3ObjectStore(" + settings + ")";
  }

  /**
   * The typed error for a failed request on {@code uri}: names the URI, the S3 error code and what
   * to check, never a credential.
   */
  ObjectStoreException failure(String action, String uri, Throwable error) {
    Throwable e = error;
    while ((e instanceof CompletionException
            || e instanceof ExecutionException
            || e instanceof UncheckedIOException)
        && e.getCause() != null) {
      e = e.getCause();
    }
    if (e instanceof ObjectStoreException o) {
      return o;
    }
    String what = "Cannot " + action + " " + uri + ": ";
    if (e instanceof AwsServiceException s) {
      String code = s.awsErrorDetails() == null ? null : s.awsErrorDetails().errorCode();
      int status = s.statusCode();
      if ("NoSuchBucket".equals(code)) {
        return new ObjectStoreException(
            Reason.NOT_FOUND,
            what + "bucket " + S3Location.parse(uri).bucket() + " does not exist",
            s);
      }
      if ("NoSuchKey".equals(code) || status == 404) {
        return new ObjectStoreException(
            Reason.NOT_FOUND, what + "no such object (was it deleted?)", s);
      }
      if (status == 403
          || status == 401
          || "AccessDenied".equals(code)
          || "InvalidAccessKeyId".equals(code)
          || "SignatureDoesNotMatch".equals(code)) {
        return new ObjectStoreException(
            Reason.ACCESS_DENIED,
            what
                + "access denied ("
                + (code == null ? "HTTP " + status : code)
                + "); check the credentials ("
                + S3Settings.ACCESS_KEY_ID
                + " and "
                + S3Settings.SECRET_ACCESS_KEY
                + ", or the AWS environment and profiles) and their permissions",
            s);
      }
      if ("NoSuchUpload".equals(code)) {
        return new ObjectStoreException(
            Reason.NOT_FOUND,
            what
                + "its multipart upload is gone (aborted by another process or a bucket"
                + " lifecycle rule before it was completed)",
            s);
      }
      if (status == 412 || "PreconditionFailed".equals(code)) {
        return new ObjectStoreException(
            Reason.INVALID,
            what
                + "the object was replaced after the query listed it (its ETag changed);"
                + " run the query again (or register the table again) to read the new content",
            s);
      }
      if (status == 416 || "InvalidRange".equals(code)) {
        return new ObjectStoreException(
            Reason.INVALID, what + "the object is shorter than expected; was it truncated?", s);
      }
      return new ObjectStoreException(
          Reason.OTHER,
          what + (code == null ? "HTTP " + status : code) + " after retries: " + s.getMessage(),
          s);
    }
    if (e instanceof SdkClientException c) {
      String m = String.valueOf(c.getMessage());
      if (m.contains("credentials")) {
        return new ObjectStoreException(
            Reason.ACCESS_DENIED,
            what
                + "no AWS credentials found; set "
                + S3Settings.ACCESS_KEY_ID
                + " and "
                + S3Settings.SECRET_ACCESS_KEY
                + ", or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or a profile",
            c);
      }
      return new ObjectStoreException(
          Reason.UNREACHABLE,
          what
              + "cannot reach the S3 endpoint "
              + (settings.endpoint() == null ? "of AWS" : settings.endpoint())
              + " ("
              + m
              + "); check "
              + S3Settings.ENDPOINT
              + " or AWS_ENDPOINT_URL and the network",
          c);
    }
    return new ObjectStoreException(Reason.OTHER, what + e, e);
  }

  /** Ranged reads of one object, of one version of it when its ETag is known (If-Match). */
  private final class S3Reader implements ObjectReader {
    private final S3Location loc;
    private final long size;
    private final String etag;
    private final LongAdder fetched = new LongAdder();

    S3Reader(S3Location loc, long size, String etag) {
      this.loc = loc;
      this.size = size;
      this.etag = etag;
    }

    @Override
    public String version() {
      return etag;
    }

    @Override
    public String location() {
      return loc.toString();
    }

    @Override
    public long size() {
      return size;
    }

    @Override
    public byte[] read(long offset, int length) {
      if (length == 0) {
        return new byte[0];
      }
      if (offset < 0 || offset + length > size) {
        throw new ObjectStoreException(
            Reason.INVALID,
            "Cannot read bytes "
                + offset
                + " to "
                + (offset + length)
                + " of "
                + loc
                + ": the object has "
                + size
                + " bytes; was it truncated?");
      }
      byte[] bytes;
      try {
        ResponseBytes<GetObjectResponse> r =
            client.getObjectAsBytes(
                b ->
                    b.bucket(loc.bucket())
                        .key(loc.key())
                        .ifMatch(etag)
                        .range("bytes=" + offset + "-" + (offset + length - 1)));
        bytes = r.asByteArrayUnsafe();
      } catch (SdkException e) {
        throw failure("read", loc.toString(), e);
      }
      fetched.add(bytes.length);
      ObjectStores.countFetched(bytes.length);
      if (bytes.length != length) {
        throw new ObjectStoreException(
            Reason.INVALID,
            "Cannot read "
                + loc
                + ": asked for "
                + length
                + " bytes at "
                + offset
                + " and got "
                + bytes.length
                + "; was the object truncated or replaced?");
      }
      return bytes;
    }

    @Override
    public List<Slice> readRanges(List<Range> ranges) {
      Integer[] order = new Integer[ranges.size()];
      for (int i = 0; i < order.length; i++) {
        order[i] = i;
      }
      Arrays.sort(order, Comparator.comparingLong(i -> ranges.get(i).offset()));
      // Merge ranges in offset order into GETs; remember which GET holds each range.
      List<Range> gets = new ArrayList<>();
      int[] getOf = new int[ranges.size()];
      long start = -1;
      long end = -1;
      for (int i : order) {
        Range r = ranges.get(i);
        if (start >= 0 && r.offset() - end <= MERGE_GAP && r.end() - start <= MAX_MERGED) {
          end = Math.max(end, r.end());
        } else {
          if (start >= 0) {
            gets.add(new Range(start, (int) (end - start)));
          }
          start = r.offset();
          end = r.end();
        }
        getOf[i] = gets.size();
      }
      if (start >= 0) {
        gets.add(new Range(start, (int) (end - start)));
      }
      List<Future<byte[]>> futures = new ArrayList<>(gets.size());
      for (int g = 0; g < gets.size(); g++) {
        Range get = gets.get(g);
        if (g == gets.size() - 1) {
          futures.add(CompletableFuture.completedFuture(null)); // read on this thread below
        } else {
          futures.add(FETCHERS.submit(() -> read(get.offset(), get.length())));
        }
      }
      byte[][] data = new byte[gets.size()][];
      try {
        if (!gets.isEmpty()) {
          Range last = gets.get(gets.size() - 1);
          data[gets.size() - 1] = read(last.offset(), last.length());
        }
        for (int g = 0; g < gets.size() - 1; g++) {
          data[g] = futures.get(g).get();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        futures.forEach(f -> f.cancel(true));
        throw new ObjectStoreException(Reason.OTHER, "Reading " + loc + " was interrupted", e);
      } catch (ExecutionException | RuntimeException e) {
        futures.forEach(f -> f.cancel(true));
        throw failure("read", loc.toString(), e);
      }
      List<Slice> out = new ArrayList<>(ranges.size());
      for (int i = 0; i < ranges.size(); i++) {
        Range r = ranges.get(i);
        Range get = gets.get(getOf[i]);
        out.add(new Slice(data[getOf[i]], (int) (r.offset() - get.offset()), r.length()));
      }
      return out;
    }

    @Override
    public long fetchedBytes() {
      return fetched.sum();
    }

    @Override
    public void close() {}
  }

  /** A GET's body; closing it early aborts the connection instead of draining the object. */
  private final class S3Stream extends java.io.FilterInputStream {
    private final S3Location loc;
    private final ResponseInputStream<GetObjectResponse> response;
    private boolean ended;

    S3Stream(S3Location loc, ResponseInputStream<GetObjectResponse> in) {
      super(in);
      this.loc = loc;
      this.response = in;
    }

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      int n = read(one, 0, 1);
      return n < 0 ? -1 : one[0] & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      int n;
      try {
        n = super.read(b, off, len);
      } catch (SdkException e) {
        throw new IOException(failure("read", loc.toString(), e).getMessage(), e);
      }
      if (n < 0) {
        ended = true;
      } else {
        ObjectStores.countFetched(n);
      }
      return n;
    }

    @Override
    public void close() throws IOException {
      if (!ended) {
        response.abort();
      }
      super.close();
    }
  }

  /**
   * A multipart upload, started once a part's worth of bytes is written or the object is closed (an
   * empty object is one empty PUT on commit). Closing uploads the last part, so commit only
   * completes the upload. Nothing is visible before commit; abort discards the uploaded parts.
   */
  private final class S3Pending extends PendingObject {
    private final S3Location loc;
    private byte[] buffer = new byte[64 << 10];
    private int buffered;
    private String uploadId;
    private final List<CompletedPart> parts = new ArrayList<>();
    private boolean closed;
    private boolean finished;

    S3Pending(S3Location loc) {
      this.loc = loc;
    }

    @Override
    public String location() {
      return loc.toString();
    }

    @Override
    public void write(int b) {
      write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) {
      if (closed) {
        throw new IllegalStateException("Object " + loc + " is already closed");
      }
      while (len > 0) {
        if (buffered == buffer.length) {
          if (buffer.length < PART_BYTES) {
            buffer = Arrays.copyOf(buffer, Math.min(PART_BYTES, buffer.length * 2));
          } else {
            uploadPart();
          }
        }
        int n = Math.min(len, buffer.length - buffered);
        System.arraycopy(b, off, buffer, buffered, n);
        buffered += n;
        off += n;
        len -= n;
      }
    }

    private void uploadPart() {
      try {
        if (uploadId == null) {
          uploadId =
              client.createMultipartUpload(r -> r.bucket(loc.bucket()).key(loc.key())).uploadId();
        }
        int number = parts.size() + 1;
        String etag =
            client
                .uploadPart(
                    r ->
                        r.bucket(loc.bucket())
                            .key(loc.key())
                            .uploadId(uploadId)
                            .partNumber(number)
                            .contentLength((long) buffered),
                    RequestBody.fromBytes(Arrays.copyOf(buffer, buffered)))
                .eTag();
        parts.add(CompletedPart.builder().partNumber(number).eTag(etag).build());
        buffered = 0;
      } catch (SdkException e) {
        throw failure("write", loc.toString(), e);
      }
    }

    @Override
    public void close() {
      if (closed) {
        return;
      }
      if (buffered > 0) {
        uploadPart(); // the last part may be smaller than S3's 5 MiB minimum
      }
      closed = true;
      buffer = null;
    }

    @Override
    public void commit() {
      try {
        close();
        if (uploadId == null) {
          client.putObject(r -> r.bucket(loc.bucket()).key(loc.key()), RequestBody.empty());
        } else {
          client.completeMultipartUpload(
              r ->
                  r.bucket(loc.bucket())
                      .key(loc.key())
                      .uploadId(uploadId)
                      .multipartUpload(m -> m.parts(parts)));
        }
        finished = true;
        buffer = null;
      } catch (SdkException e) {
        abort();
        throw failure("write", loc.toString(), e);
      } catch (RuntimeException e) {
        abort();
        throw e;
      }
    }

    @Override
    public void abort() {
      if (finished) {
        return;
      }
      finished = true;
      closed = true;
      buffer = null;
      if (uploadId != null) {
        try {
          client.abortMultipartUpload(
              r -> r.bucket(loc.bucket()).key(loc.key()).uploadId(uploadId));
        } catch (SdkException ignored) {
          // Unfinished parts are invisible; a bucket lifecycle rule removes them eventually.
        }
      }
    }
  }
}
