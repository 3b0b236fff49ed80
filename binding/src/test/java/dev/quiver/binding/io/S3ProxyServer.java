package dev.quiver.binding.io;

import dev.quiver.binding.settings.SessionConfig;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A real S3-API server for tests: S3Proxy, started from its self-contained jar as a child process
 * on 127.0.0.1 (an ephemeral port), serving a local folder and requiring requests signed with its
 * own access key and secret (AWS signature v2 or v4). Each bucket is a folder of {@link #root()}.
 */
public final class S3ProxyServer implements AutoCloseable {
  private static final Pattern STARTED =
      Pattern.compile("Started ServerConnector.*\\{(127\\.0\\.0\\.1):(\\d+)\\}");

  /** S3Proxy's debug line for each request it receives: method and URL with its query. */
  private static final Pattern REQUEST =
      Pattern.compile("request: Request\\((\\w+) https?://[^/]+(/\\S*)\\)@");

  private final Path dir;
  private final Path root;
  private final Process process;
  private final String endpoint;
  private final String accessKey = "quiver-test-key";
  private final String secret;
  private final List<String> requests;

  private S3ProxyServer(
      Path dir, Path root, Process process, String endpoint, String secret, List<String> requests) {
    this.dir = dir;
    this.root = root;
    this.process = process;
    this.endpoint = endpoint;
    this.secret = secret;
    this.requests = requests;
  }

  /** The jar the build copied (system property {@code quiver.s3proxy.jar}). */
  static Path jar() {
    String p = System.getProperty("quiver.s3proxy.jar", "target/s3proxy/s3proxy.jar");
    Path jar = Path.of(p).toAbsolutePath();
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(
          jar + " is missing: the build copies it (maven-dependency-plugin, copy-s3proxy)");
    }
    return jar;
  }

  /** Starts a server over a new temporary folder; waits until it listens (60 s at most). */
  public static S3ProxyServer start() throws Exception {
    return start(false);
  }

  /**
   * Starts a server that also records every request it receives (S3Proxy's debug log), for {@link
   * #requests()}: tests count the requests a query makes.
   */
  public static S3ProxyServer startRecordingRequests() throws Exception {
    return start(true);
  }

  private static S3ProxyServer start(boolean record) throws Exception {
    Path dir = Files.createTempDirectory("quiver-s3proxy-");
    Path root = Files.createDirectories(dir.resolve("buckets"));
    String secret = "s3cr3t-" + UUID.randomUUID();
    Path conf = dir.resolve("s3proxy.conf");
    Files.writeString(
        conf,
        String.join(
            "\n",
            "s3proxy.endpoint=http://127.0.0.1:0",
            "s3proxy.authorization=aws-v2-or-v4",
            "s3proxy.identity=quiver-test-key",
            "s3proxy.credential=" + secret,
            "jclouds.provider=filesystem-nio2",
            "jclouds.identity=unused",
            "jclouds.credential=unused",
            "jclouds.filesystem.basedir=" + root,
            ""));
    List<String> cmd =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-Djava.io.tmpdir=" + Files.createDirectories(dir.resolve("tmp")),
                "-jar",
                jar().toString(),
                "--properties",
                conf.toString()));
    ProcessBuilder builder = new ProcessBuilder(cmd).redirectErrorStream(true);
    if (record) {
      builder.environment().put("LOG_LEVEL", "debug");
    }
    Process p = builder.start();
    Path log = dir.resolve("s3proxy.log");
    CompletableFuture<String> address = new CompletableFuture<>();
    List<String> requests = java.util.Collections.synchronizedList(new ArrayList<>());
    Thread pump =
        new Thread(
            () -> {
              try (BufferedReader r =
                      new BufferedReader(
                          new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
                  var out = Files.newBufferedWriter(log)) {
                String line;
                while ((line = r.readLine()) != null) {
                  out.write(line);
                  out.newLine();
                  out.flush();
                  Matcher m = STARTED.matcher(line);
                  if (m.find()) {
                    address.complete("http://" + m.group(1) + ":" + m.group(2));
                  }
                  Matcher r2 = REQUEST.matcher(line);
                  if (r2.find()) {
                    requests.add(r2.group(1) + " " + r2.group(2));
                  }
                }
              } catch (IOException e) {
                address.completeExceptionally(e);
              }
              address.completeExceptionally(new IllegalStateException("S3Proxy exited"));
            },
            "s3proxy-log");
    pump.setDaemon(true);
    pump.start();
    try {
      return new S3ProxyServer(dir, root, p, address.get(60, TimeUnit.SECONDS), secret, requests);
    } catch (Exception e) {
      p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      String text = Files.exists(log) ? Files.readString(log) : "";
      deleteTree(dir);
      throw new IllegalStateException("S3Proxy did not start:\n" + text, e);
    }
  }

  /** {@code http://127.0.0.1:PORT}. */
  public String endpoint() {
    return endpoint;
  }

  /** The access key id the server accepts. */
  public String accessKey() {
    return accessKey;
  }

  /** The secret the server accepts (tests grep logs for it). */
  public String secret() {
    return secret;
  }

  /**
   * Every request the server has received so far, oldest first, as {@code METHOD /bucket/key?query}
   * (decoded as S3Proxy logs it). Only a server started by {@link #startRecordingRequests()}
   * records them; requests answered before this call are all included, as a marker request sent now
   * is awaited in the log.
   */
  public List<String> requests() {
    String marker = "/quiver-marker-" + UUID.randomUUID();
    try (S3Client c = client()) {
      c.headBucket(b -> b.bucket(marker.substring(1)));
    } catch (software.amazon.awssdk.services.s3.model.S3Exception expected) {
      // No such bucket: the request was logged all the same.
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      synchronized (requests) {
        for (int i = requests.size() - 1; i >= 0; i--) {
          if (requests.get(i).equals("HEAD " + marker)) {
            List<String> before = new ArrayList<>(requests.subList(0, i));
            before.removeIf(r -> r.contains("/quiver-marker-"));
            return before;
          }
        }
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    throw new IllegalStateException("S3Proxy logged no requests; start it recording requests");
  }

  /** The LIST requests (ListObjects v1 or v2: a GET of a bucket) among {@code requests}. */
  public static List<String> lists(List<String> requests) {
    return requests.stream().filter(r -> r.matches("GET /[^/?]+/?(\\?.*)?")).toList();
  }

  /** The folder holding one subfolder per bucket. */
  public Path root() {
    return root;
  }

  /** Creates bucket {@code name} (empty). */
  public void createBucket(String name) throws IOException {
    try (S3Client c = client()) {
      c.createBucket(b -> b.bucket(name));
    }
  }

  /** A client of this server with its credentials (the caller closes it). */
  public S3Client client() {
    return S3Client.builder()
        .endpointOverride(java.net.URI.create(endpoint))
        .region(Region.US_EAST_1)
        .forcePathStyle(true)
        .credentialsProvider(
            StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, secret)))
        .httpClientBuilder(software.amazon.awssdk.http.apache5.Apache5HttpClient.builder())
        .requestChecksumCalculation(
            software.amazon.awssdk.core.checksums.RequestChecksumCalculation.WHEN_REQUIRED)
        .responseChecksumValidation(
            software.amazon.awssdk.core.checksums.ResponseChecksumValidation.WHEN_REQUIRED)
        .build();
  }

  /**
   * Uploads local folder or file {@code from} under {@code bucket/prefix} through the S3 API;
   * returns the s3:// URI.
   */
  public String put(Path from, String bucket, String prefix) throws IOException {
    try (S3Client c = client()) {
      if (Files.isRegularFile(from)) {
        c.putObject(b -> b.bucket(bucket).key(prefix), RequestBody.fromFile(from));
      } else {
        try (Stream<Path> walk = Files.walk(from)) {
          for (Path p : walk.filter(Files::isRegularFile).toList()) {
            String key = prefix + "/" + from.relativize(p).toString().replace('\\', '/');
            c.putObject(b -> b.bucket(bucket).key(key), RequestBody.fromFile(p));
          }
        }
      }
    }
    return "s3://" + bucket + "/" + prefix;
  }

  /** The keys under {@code prefix} in {@code bucket}, as the S3 API lists them. */
  public List<String> keys(String bucket, String prefix) {
    try (S3Client c = client()) {
      List<String> keys = new ArrayList<>();
      c.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(prefix))
          .contents()
          .forEach(o -> keys.add(o.key()));
      return keys;
    }
  }

  /** Settings that reach this server with its credentials. */
  public SessionConfig configure(SessionConfig config) {
    return config
        .set(SessionConfig.S3_ENDPOINT, endpoint)
        .set(SessionConfig.S3_REGION, "us-east-1")
        .set(SessionConfig.S3_ACCESS_KEY_ID, accessKey)
        .set(SessionConfig.S3_SECRET_ACCESS_KEY, secret);
  }

  /** Environment variables that reach this server through the AWS SDK's default chain. */
  public Map<String, String> environment() {
    return Map.of(
        "AWS_ACCESS_KEY_ID", accessKey,
        "AWS_SECRET_ACCESS_KEY", secret,
        "AWS_REGION", "us-east-1",
        "AWS_ENDPOINT_URL", endpoint);
  }

  /** Stops the server and deletes its folder. */
  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
    deleteTree(dir);
  }

  static void deleteTree(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // Best effort: the folder is in the temporary directory.
    }
  }
}
