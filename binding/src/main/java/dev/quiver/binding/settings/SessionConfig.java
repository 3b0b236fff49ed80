package dev.quiver.binding.settings;

import dev.quiver.binding.errors.InvalidSettingException;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.errors.UnknownSettingException;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Settings of a session. Every setting is a {@code key=value} option (also settable with SQL {@code
 * SET key = value}) that some module defines in the {@link SettingsRegistry} with its type and
 * default; {@link #get(Setting)} reads one typed, and the well-known ones have accessors.
 */
public final class SessionConfig {
  /** Number of partitions (and threads) a query is planned for. */
  public static final String TARGET_PARTITIONS = "quiver.execution.target_partitions";

  /** Rows per record batch produced by scans and operators. */
  public static final String BATCH_SIZE = "quiver.execution.batch_size";

  /** Bytes of Arrow memory a query may use; 0 means unbounded. */
  public static final String MEMORY_LIMIT = "quiver.execution.memory_limit";

  /** Directory for spill files; empty means the JVM temp directory. */
  public static final String SPILL_DIRECTORY = "quiver.execution.spill_directory";

  /** Endpoint URL of an S3-compatible store, e.g. {@code http://127.0.0.1:9000}. */
  public static final String S3_ENDPOINT = "quiver.s3.endpoint";

  /** Region S3 requests are signed for (default: the AWS SDK's chain, else us-east-1). */
  public static final String S3_REGION = "quiver.s3.region";

  /**
   * {@code true} for path-style S3 URLs (bucket in the path); default: true whenever an endpoint is
   * overridden.
   */
  public static final String S3_PATH_STYLE = "quiver.s3.path_style";

  /** S3 access key id; with the secret, replaces the AWS SDK's default credentials. */
  public static final String S3_ACCESS_KEY_ID = "quiver.s3.access_key_id";

  /** S3 secret access key (never shown in logs, errors, plans or job status). */
  public static final String S3_SECRET_ACCESS_KEY = "quiver.s3.secret_access_key";

  /** S3 session token of temporary credentials (optional). */
  public static final String S3_SESSION_TOKEN = "quiver.s3.session_token";

  private final Map<String, String> options = new TreeMap<>();

  /** Creates a config with defaults: target partitions = available cores, batch size 8192. */
  public SessionConfig() {
    options.put(TARGET_PARTITIONS, Integer.toString(Runtime.getRuntime().availableProcessors()));
    options.put(BATCH_SIZE, "8192");
    options.put(MEMORY_LIMIT, "0");
    options.put(SPILL_DIRECTORY, "");
  }

  /** Returns a copy whose options can be changed independently. */
  public SessionConfig copy() {
    SessionConfig copy = new SessionConfig();
    copy.options.clear();
    copy.options.putAll(options);
    return copy;
  }

  /**
   * Sets a setting; keys are case-insensitive, and short keys ("target_partitions") stand for
   * {@code quiver.execution.*}. The key must be one a module on the class path defines ({@link
   * SettingsRegistry}) and the value one its type accepts.
   *
   * @throws UnknownSettingException for an unknown key, suggesting the closest known keys
   * @throws InvalidSettingException for a value the setting does not accept
   */
  public SessionConfig set(String key, String value) {
    String k = canonical(key);
    SettingsRegistry.require(k, key.trim()).parse(value);
    options.put(k, value);
    return this;
  }

  /**
   * Takes settings another process sent with a task (a job's settings): known keys are checked as
   * {@link #set} checks them; a key no module here defines is kept as it is, since it belongs to a
   * module of the sending process (e.g. the Flight SQL server's), which checked it.
   *
   * @throws InvalidSettingException for a known key with a value it does not accept
   */
  public SessionConfig setShipped(Map<String, String> settings) {
    for (Map.Entry<String, String> e : settings.entrySet()) {
      String k = canonical(e.getKey());
      if (SettingsRegistry.find(k).isPresent()) {
        set(k, e.getValue());
      } else {
        options.put(k, e.getValue());
      }
    }
    return this;
  }

  /** Returns an option's value as set, or null when unset. */
  public String get(String key) {
    return options.get(canonical(key));
  }

  /** The value of {@code setting}: as set, parsed, or its default when unset. */
  public <T> T get(Setting<T> setting) {
    String v = options.get(setting.key());
    return v == null ? setting.defaultValue() : setting.parse(v);
  }

  /**
   * The value of setting {@code name} (a full or short key) as {@code SHOW name} and {@code
   * current_setting('name')} show it: as set or else its default, a secret's as {@code ***}.
   *
   * @throws dev.quiver.binding.errors.UnknownSettingException for a key no module declares
   */
  public String shown(String name) {
    String key = canonical(name);
    String set = options.get(key);
    String v = set != null ? set : SettingsRegistry.require(key, name.trim()).defaultText();
    return masked(key, v);
  }

  /** {@code value} of setting {@code key} as shown: {@code ***} for a secret that is set. */
  public static String masked(String key, String value) {
    return isSecret(key) && value != null && !value.isEmpty() ? "***" : value;
  }

  /** All options, read-only, sorted by key. */
  public Map<String, String> options() {
    return Collections.unmodifiableMap(options);
  }

  /** Sets the number of partitions a query is planned for. */
  public SessionConfig withTargetPartitions(int n) {
    return set(TARGET_PARTITIONS, Integer.toString(n));
  }

  /** Sets the rows per batch. */
  public SessionConfig withBatchSize(int rows) {
    return set(BATCH_SIZE, Integer.toString(rows));
  }

  /** Sets the per-query memory limit in bytes (0 = unbounded). */
  public SessionConfig withMemoryLimit(long bytes) {
    return set(MEMORY_LIMIT, Long.toString(bytes));
  }

  /** Sets the directory spill files go to. */
  public SessionConfig withSpillDirectory(Path dir) {
    return set(SPILL_DIRECTORY, dir.toString());
  }

  /** Number of partitions a query is planned for. */
  public int targetPartitions() {
    return get(BindingSettings.TARGET_PARTITIONS);
  }

  /** Rows per record batch. */
  public int batchSize() {
    return get(BindingSettings.BATCH_SIZE);
  }

  /** Per-query memory limit in bytes; {@code Long.MAX_VALUE} when unbounded. */
  public long memoryLimit() {
    long v = get(BindingSettings.MEMORY_LIMIT);
    return v <= 0 ? Long.MAX_VALUE : v;
  }

  /** Directory for spill files. */
  public Path spillDirectory() {
    String dir = options.get(SPILL_DIRECTORY);
    return dir == null || dir.isEmpty()
        ? Path.of(System.getProperty("java.io.tmpdir"))
        : Path.of(dir);
  }

  /**
   * Parses sizes such as {@code 512m}, {@code 2g}, {@code 64KB}, {@code 1048576}.
   *
   * @throws QuiverException when {@code text} is not a size
   */
  public static long parseBytes(String text) {
    try {
      return Setting.parseSize(text);
    } catch (RuntimeException e) {
      throw new QuiverException(
          "Invalid size '" + text + "': use a number of bytes, optionally with k, m or g");
    }
  }

  /** The full key {@code key} stands for: lower case, {@code quiver.execution.} for short keys. */
  public static String canonical(String key) {
    String k = key.trim().toLowerCase(Locale.ROOT);
    return k.startsWith("quiver.") ? k : "quiver.execution." + k;
  }

  /** Whether the value of setting {@code key} is a credential, never to be shown. */
  public static boolean isSecret(String key) {
    return SettingsRegistry.isSecret(canonical(key));
  }
}
