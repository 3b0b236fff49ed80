package dev.quiver.binding.io;

import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.settings.SessionConfig;
import java.net.URI;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * How to reach S3 for one session: the {@code quiver.s3.*} settings over the process environment.
 * Unset values fall back to the AWS SDK's default chains (environment variables, profiles, instance
 * roles); path-style addressing is used whenever an endpoint is given, unless {@code
 * quiver.s3.path_style} says otherwise. {@link #toString()} never shows the secret.
 */
public final class S3Settings {
  /** See {@link SessionConfig#S3_ENDPOINT}. */
  public static final String ENDPOINT = SessionConfig.S3_ENDPOINT;

  /** See {@link SessionConfig#S3_REGION}. */
  public static final String REGION = SessionConfig.S3_REGION;

  /** See {@link SessionConfig#S3_PATH_STYLE}. */
  public static final String PATH_STYLE = SessionConfig.S3_PATH_STYLE;

  /** See {@link SessionConfig#S3_ACCESS_KEY_ID}. */
  public static final String ACCESS_KEY_ID = SessionConfig.S3_ACCESS_KEY_ID;

  /** See {@link SessionConfig#S3_SECRET_ACCESS_KEY}. */
  public static final String SECRET_ACCESS_KEY = SessionConfig.S3_SECRET_ACCESS_KEY;

  /** See {@link SessionConfig#S3_SESSION_TOKEN}. */
  public static final String SESSION_TOKEN = SessionConfig.S3_SESSION_TOKEN;

  private final String endpoint;
  private final String region;
  private final Boolean pathStyle;
  private final String accessKeyId;
  private final String secretAccessKey;
  private final String sessionToken;

  private S3Settings(
      String endpoint,
      String region,
      Boolean pathStyle,
      String accessKeyId,
      String secretAccessKey,
      String sessionToken) {
    this.endpoint = endpoint;
    this.region = region;
    this.pathStyle = pathStyle;
    this.accessKeyId = accessKeyId;
    this.secretAccessKey = secretAccessKey;
    this.sessionToken = sessionToken;
  }

  /** The settings of {@code config} (null: none), over the process environment. */
  public static S3Settings of(SessionConfig config) {
    return of(config == null ? Map.of() : config.options(), System.getenv());
  }

  /** The settings in {@code options}, falling back to {@code env} for the endpoint. */
  static S3Settings of(Map<String, String> options, Map<String, String> env) {
    String endpoint = blankToNull(options.get(ENDPOINT));
    if (endpoint == null) {
      // The SDK reads these too, but Quiver must know an endpoint was overridden to pick
      // path-style addressing, which S3-compatible stores need.
      endpoint = blankToNull(env.get("AWS_ENDPOINT_URL_S3"));
      if (endpoint == null) {
        endpoint = blankToNull(env.get("AWS_ENDPOINT_URL"));
      }
    }
    String pathStyleText = blankToNull(options.get(PATH_STYLE));
    Boolean pathStyle = pathStyleText == null ? null : parseBoolean(pathStyleText);
    String key = blankToNull(options.get(ACCESS_KEY_ID));
    String secret = blankToNull(options.get(SECRET_ACCESS_KEY));
    if ((key == null) != (secret == null)) {
      throw new QuiverException(
          "Set both "
              + ACCESS_KEY_ID
              + " and "
              + SECRET_ACCESS_KEY
              + " or neither (then the AWS SDK's default credentials apply)");
    }
    if (endpoint != null) {
      checkEndpoint(endpoint);
    }
    return new S3Settings(
        endpoint,
        blankToNull(options.get(REGION)),
        pathStyle,
        key,
        secret,
        blankToNull(options.get(SESSION_TOKEN)));
  }

  private static void checkEndpoint(String endpoint) {
    try {
      URI u = URI.create(endpoint);
      if (u.getScheme() == null
          || !(u.getScheme().equals("http") || u.getScheme().equals("https"))
          || u.getHost() == null) {
        throw new IllegalArgumentException("not an http(s) URL");
      }
    } catch (IllegalArgumentException e) {
      throw new QuiverException(
          "S3 endpoint '"
              + endpoint
              + "' is not valid: use an http:// or https:// URL with a host, e.g."
              + " http://127.0.0.1:9000");
    }
  }

  private static boolean parseBoolean(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    if (t.equals("true")) {
      return true;
    }
    if (t.equals("false")) {
      return false;
    }
    throw new QuiverException(PATH_STYLE + " must be true or false, got '" + text + "'");
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s.trim();
  }

  /** The endpoint override, or null for AWS's own endpoints. */
  public String endpoint() {
    return endpoint;
  }

  /** The region, or null to ask the SDK's chain. */
  public String region() {
    return region;
  }

  /** Whether requests use path-style URLs: as set, else whenever an endpoint is overridden. */
  public boolean pathStyle() {
    return pathStyle != null ? pathStyle : endpoint != null;
  }

  /** The access key id set in the session, or null for the SDK's default credentials. */
  public String accessKeyId() {
    return accessKeyId;
  }

  /** The secret set in the session, or null. */
  String secretAccessKey() {
    return secretAccessKey;
  }

  /** The session token set in the session, or null. */
  String sessionToken() {
    return sessionToken;
  }

  /** Whether the session gives its own credentials. */
  public boolean hasStaticCredentials() {
    return accessKeyId != null;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof S3Settings s
        && Objects.equals(endpoint, s.endpoint)
        && Objects.equals(region, s.region)
        && Objects.equals(pathStyle, s.pathStyle)
        && Objects.equals(accessKeyId, s.accessKeyId)
        && Objects.equals(secretAccessKey, s.secretAccessKey)
        && Objects.equals(sessionToken, s.sessionToken);
  }

  @Override
  public int hashCode() {
    return Objects.hash(endpoint, region, pathStyle, accessKeyId, secretAccessKey, sessionToken);
  }

  @Override
  public String toString() {
    return "S3Settings(endpoint="
        + (endpoint == null ? "default" : endpoint)
        + ", region="
        + (region == null ? "default" : region)
        + ", pathStyle="
        + pathStyle()
        + ", credentials="
        + (accessKeyId == null ? "default chain" : "access key " + accessKeyId + " and secret ***")
        + ")";
  }
}
