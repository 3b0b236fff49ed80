package dev.quiver.binding.settings;

import dev.quiver.binding.errors.InvalidSettingException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * One session setting: its key, type, default and documentation, and the parser that checks a value
 * when it is set. Values are kept as the text given (they travel to executors as text) and parsed
 * again where they are read, with {@code SessionConfig.get(Setting)}.
 *
 * @param <T> the type a value parses to
 */
public final class Setting<T> {
  private final String key;
  private final String type;
  private final Supplier<T> defaultValue;
  private final String defaultText;
  private final String doc;
  private final boolean secret;
  private final Function<String, T> parser;

  /** Whether the value names a local file or folder the process writes or reads. */
  private final boolean localPath;

  private Setting(
      String key,
      String type,
      Supplier<T> defaultValue,
      String defaultText,
      String doc,
      boolean secret,
      Function<String, T> parser) {
    this(key, type, defaultValue, defaultText, doc, secret, parser, false);
  }

  private Setting(
      String key,
      String type,
      Supplier<T> defaultValue,
      String defaultText,
      String doc,
      boolean secret,
      Function<String, T> parser,
      boolean localPath) {
    String k = Objects.requireNonNull(key, "key");
    if (!k.equals(k.toLowerCase(Locale.ROOT)) || !k.startsWith("quiver.") || k.isBlank()) {
      throw new IllegalArgumentException(
          "A setting key is lower case and starts with quiver.: " + k);
    }
    this.key = k;
    this.type = Objects.requireNonNull(type, "type");
    this.defaultValue = Objects.requireNonNull(defaultValue, "defaultValue");
    this.defaultText = Objects.requireNonNull(defaultText, "defaultText");
    this.doc = Objects.requireNonNull(doc, "doc");
    this.secret = secret;
    this.parser = Objects.requireNonNull(parser, "parser");
    this.localPath = localPath;
  }

  /** The key, e.g. {@code quiver.execution.batch_size}. */
  public String key() {
    return key;
  }

  /** The kind of value, as documented: {@code integer >= 1}, {@code size}, {@code boolean}... */
  public String type() {
    return type;
  }

  /** The value when unset (null when unset means "not given", e.g. the server decides). */
  public T defaultValue() {
    return defaultValue.get();
  }

  /** The default as documented ({@code 8192}, {@code the number of cores}, {@code unset}...). */
  public String defaultText() {
    return defaultText;
  }

  /** What the setting does, one sentence or two. */
  public String doc() {
    return doc;
  }

  /** Whether the value is a credential, never to be shown in logs, errors, plans or status. */
  public boolean secret() {
    return secret;
  }

  /**
   * Whether the value names a local file or folder: a server's clients may set it only to a path
   * under its allowed paths ({@code --allowed-paths}), as SQL reaches local files.
   */
  public boolean localPath() {
    return localPath;
  }

  /**
   * Parses {@code value}.
   *
   * @throws InvalidSettingException naming the key, the value (unless secret) and what is accepted
   */
  public T parse(String value) {
    if (value == null) {
      throw invalid("null");
    }
    try {
      return parser.apply(value.trim());
    } catch (RuntimeException e) {
      throw invalid(value);
    }
  }

  private InvalidSettingException invalid(String value) {
    return new InvalidSettingException(
        key,
        "Invalid value "
            + (secret ? "" : "'" + value + "' ")
            + "for setting "
            + key
            + ": expected "
            + type);
  }

  @Override
  public String toString() {
    return key + " (" + type + ", default " + defaultText + ")";
  }

  // ---- factories ---------------------------------------------------------------------------

  /** A whole number of at least {@code min}. */
  public static Setting<Integer> integer(String key, int min, int defaultValue, String doc) {
    return integer(key, min, () -> defaultValue, Integer.toString(defaultValue), doc);
  }

  /** A whole number of at least {@code min} whose default is computed (e.g. the cores). */
  public static Setting<Integer> integer(
      String key, int min, Supplier<Integer> defaultValue, String defaultText, String doc) {
    return new Setting<>(
        key,
        "an integer >= " + min,
        defaultValue,
        defaultText,
        doc,
        false,
        v -> atLeast(Integer.parseInt(v), min));
  }

  /** A whole number (64-bit) of at least {@code min}; {@code defaultValue} may be null (unset). */
  public static Setting<Long> longInteger(String key, long min, Long defaultValue, String doc) {
    return new Setting<>(
        key,
        "an integer >= " + min,
        () -> defaultValue,
        defaultValue == null ? "unset" : defaultValue.toString(),
        doc,
        false,
        v -> atLeast(Long.parseLong(v), min));
  }

  /**
   * A number of bytes of at least {@code min}, optionally with a unit: {@code 1048576}, {@code
   * 64k}, {@code 16MB}, {@code 2g}.
   */
  public static Setting<Long> bytes(String key, long min, long defaultValue, String doc) {
    return new Setting<>(
        key,
        "a size >= " + min + " (bytes, or with k, m or g, e.g. 64MB)",
        () -> defaultValue,
        sizeText(defaultValue),
        doc,
        false,
        v -> atLeast(parseSize(v), min));
  }

  /** {@code true} or {@code false} (any case). */
  public static Setting<Boolean> bool(String key, Boolean defaultValue, String doc) {
    return bool(key, defaultValue, defaultValue == null ? "unset" : defaultValue.toString(), doc);
  }

  /** {@code true} or {@code false}, with a documented default such as "the server's flag". */
  public static Setting<Boolean> bool(
      String key, Boolean defaultValue, String defaultText, String doc) {
    return new Setting<>(
        key,
        "true or false",
        () -> defaultValue,
        defaultText,
        doc,
        false,
        v -> {
          String t = v.toLowerCase(Locale.ROOT);
          if (t.equals("true")) {
            return true;
          }
          if (t.equals("false")) {
            return false;
          }
          throw new IllegalArgumentException(v);
        });
  }

  /**
   * A duration: a whole number with {@code ms}, {@code s}, {@code m} (or {@code min}) or {@code h};
   * a bare number is seconds.
   */
  public static Setting<Duration> duration(String key, Duration defaultValue, String doc) {
    return new Setting<>(
        key,
        "a duration such as 500ms, 60s or 2m (a bare number is seconds)",
        () -> defaultValue,
        durationText(defaultValue),
        doc,
        false,
        Setting::parseDuration);
  }

  /** One of {@code choices} (any case); the value parses to the choice in lower case. */
  public static Setting<String> oneOf(
      String key, List<String> choices, String defaultValue, String defaultText, String doc) {
    List<String> lower = choices.stream().map(c -> c.toLowerCase(Locale.ROOT)).toList();
    return new Setting<>(
        key,
        "one of " + String.join(", ", lower),
        () -> defaultValue,
        defaultText,
        doc,
        false,
        v -> {
          String t = v.toLowerCase(Locale.ROOT);
          if (!lower.contains(t)) {
            throw new IllegalArgumentException(v);
          }
          return t;
        });
  }

  /** Any text. */
  public static Setting<String> text(String key, String defaultText, String doc) {
    return new Setting<>(key, "text", () -> null, defaultText, doc, false, v -> v);
  }

  /** A local file or folder ({@link #localPath()}), kept as text. */
  public static Setting<String> localPath(String key, String defaultText, String doc) {
    return new Setting<>(key, "a local path", () -> null, defaultText, doc, false, v -> v, true);
  }

  /**
   * Text that {@code check} accepts ({@code type} says what it accepts in errors and the docs);
   * {@code check} throws any runtime exception to refuse a value.
   */
  public static Setting<String> text(
      String key, String type, String defaultText, String doc, Function<String, String> check) {
    return new Setting<>(key, type, () -> null, defaultText, doc, false, check);
  }

  /** A credential: any text, never shown. */
  public static Setting<String> secretText(String key, String doc) {
    return new Setting<>(key, "text (secret)", () -> null, "unset", doc, true, v -> v);
  }

  private static <N extends Comparable<N>> N atLeast(N value, N min) {
    if (value.compareTo(min) < 0) {
      throw new IllegalArgumentException(value + " < " + min);
    }
    return value;
  }

  /**
   * Parses a size: a whole number of bytes, optionally followed by {@code k}, {@code m} or {@code
   * g} (powers of 1024) and an optional {@code b}, any case: {@code 512m}, {@code 64KB}, {@code
   * 1048576}.
   *
   * @throws NumberFormatException when it is not one
   */
  public static long parseSize(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    long unit = 1;
    if (t.endsWith("b")) {
      t = t.substring(0, t.length() - 1);
    }
    if (t.endsWith("k")) {
      unit = 1L << 10;
    } else if (t.endsWith("m")) {
      unit = 1L << 20;
    } else if (t.endsWith("g")) {
      unit = 1L << 30;
    }
    if (unit != 1) {
      t = t.substring(0, t.length() - 1);
    }
    return Math.multiplyExact(Long.parseLong(t.trim()), unit);
  }

  static Duration parseDuration(String text) {
    String t = text.toLowerCase(Locale.ROOT);
    int split = 0;
    while (split < t.length() && Character.isDigit(t.charAt(split))) {
      split++;
    }
    long n = Long.parseLong(t.substring(0, split));
    return switch (t.substring(split).trim()) {
      case "ms" -> Duration.ofMillis(n);
      case "", "s" -> Duration.ofSeconds(n);
      case "m", "min" -> Duration.ofMinutes(n);
      case "h" -> Duration.ofHours(n);
      default -> throw new IllegalArgumentException(text);
    };
  }

  private static String sizeText(long bytes) {
    if (bytes > 0 && bytes % (1L << 30) == 0) {
      return (bytes >> 30) + "g";
    }
    if (bytes > 0 && bytes % (1L << 20) == 0) {
      return (bytes >> 20) + "m";
    }
    if (bytes > 0 && bytes % (1L << 10) == 0) {
      return (bytes >> 10) + "k";
    }
    return Long.toString(bytes);
  }

  private static String durationText(Duration d) {
    if (d.toMillis() % 1000 != 0) {
      return d.toMillis() + "ms";
    }
    long s = d.toSeconds();
    return s % 60 == 0 && s > 0 ? (s / 60) + "m" : s + "s";
  }
}
