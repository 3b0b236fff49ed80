package dev.quiver.distributed.security;

import dev.quiver.binding.errors.QuiverException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * TLS material (certificate chain, private key and CA certificates, all PEM), the clients' token
 * and the cluster credential. Servers use TLS when given a certificate and key; clients use TLS
 * when given a CA (or, on cluster nodes, when they serve TLS themselves).
 *
 * <p>The client token ({@code --token-file}) is what clients present. The cluster credential
 * ({@code --cluster-token-file}) is what executors and the scheduler present to each other; a
 * process that has it sends it on every call, and servers give its callers the {@link Role#CLUSTER}
 * role (registering executors, launching tasks) and the client token's callers only {@link
 * Role#CLIENT}. Without a cluster credential the client token is the single shared token of every
 * role. {@link #toString()} never shows a token.
 */
public final class SecurityConfig {
  private static final Pattern USER_NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");

  private static final SecurityConfig NONE =
      new SecurityConfig(null, null, null, null, null, null, null, Map.of());

  private final Pem certChain;
  private final Pem privateKey;
  private final Pem ca;
  private final String token;
  private final String tokenSource;
  private final String clusterToken;
  private final String clusterTokenSource;

  /** Each user's token (user name to token): a call with it runs as that user. */
  private final Map<String, String> users;

  /** PEM bytes and the file they came from (for error messages; paths are not secret). */
  record Pem(byte[] bytes, String source) {
    @Override
    public String toString() {
      return source;
    }
  }

  private SecurityConfig(
      Pem certChain,
      Pem privateKey,
      Pem ca,
      String token,
      String tokenSource,
      String clusterToken,
      String clusterTokenSource,
      Map<String, String> users) {
    if ((certChain == null) != (privateKey == null)) {
      throw new QuiverException(
          "TLS needs both a certificate chain (--tls-cert) and its private key (--tls-key)");
    }
    if (clusterToken != null && token == null && users.isEmpty()) {
      throw new QuiverException(
          "A cluster credential (--cluster-token-file) needs the clients' token too"
              + " (--token-file): servers accept clients only with it");
    }
    if (clusterToken != null && clusterToken.equals(token)) {
      throw new QuiverException(
          "The cluster token from "
              + clusterTokenSource
              + " is the clients' token from "
              + tokenSource
              + "; give executors and the scheduler a token of their own");
    }
    this.certChain = certChain;
    this.privateKey = privateKey;
    this.ca = ca;
    this.token = token;
    this.tokenSource = tokenSource;
    this.clusterToken = clusterToken;
    this.clusterTokenSource = clusterTokenSource;
    this.users = Map.copyOf(users);
    for (Map.Entry<String, String> u : this.users.entrySet()) {
      if (u.getValue().equals(clusterToken) || u.getValue().equals(token)) {
        throw new QuiverException(
            "The token of user '"
                + u.getKey()
                + "' is also the "
                + (u.getValue().equals(clusterToken) ? "cluster" : "clients'")
                + " token; give each user a token of their own");
      }
    }
    if (new HashSet<>(this.users.values()).size() != this.users.size()) {
      throw new QuiverException(
          "Two users of the users file share a token; give each user a token of their own");
    }
  }

  /** No TLS and no token: plaintext, unauthenticated (loopback development only). */
  public static SecurityConfig none() {
    return NONE;
  }

  /**
   * Settings read from files; any argument may be null.
   *
   * @param certChain this server's certificate chain (PEM); needs {@code privateKey}
   * @param privateKey its private key (PKCS#8 PEM)
   * @param ca certificates that verify the peers this process connects to (PEM)
   * @param tokenFile file holding the shared token (surrounding whitespace is ignored)
   */
  public static SecurityConfig fromFiles(Path certChain, Path privateKey, Path ca, Path tokenFile) {
    SecurityConfig c =
        new SecurityConfig(
            certChain == null ? null : read(certChain, "TLS certificate chain"),
            privateKey == null ? null : read(privateKey, "TLS private key"),
            ca == null ? null : read(ca, "TLS CA certificates"),
            null,
            null,
            null,
            null,
            Map.of());
    return tokenFile == null ? c : c.withTokenFile(tokenFile);
  }

  /** A copy whose clients verify servers with the CA certificates in {@code caPem}. */
  public SecurityConfig withTrustedCa(Path caPem) {
    return new SecurityConfig(
        certChain,
        privateKey,
        read(caPem, "TLS CA certificates"),
        token,
        tokenSource,
        clusterToken,
        clusterTokenSource,
        users);
  }

  /** A copy that sends and requires {@code sharedToken} (surrounding whitespace is ignored). */
  public SecurityConfig withToken(String sharedToken) {
    return new SecurityConfig(
        certChain,
        privateKey,
        ca,
        checkToken(sharedToken, "the token given"),
        "the token given",
        clusterToken,
        clusterTokenSource,
        users);
  }

  /** A copy that sends and requires the token held in {@code tokenFile} (trimmed). */
  public SecurityConfig withTokenFile(Path tokenFile) {
    String source = "token file " + tokenFile;
    String text = new String(read(tokenFile, "token file").bytes(), StandardCharsets.UTF_8);
    return new SecurityConfig(
        certChain,
        privateKey,
        ca,
        checkToken(text, source),
        source,
        clusterToken,
        clusterTokenSource,
        users);
  }

  /**
   * A copy that sends {@code token} as the cluster credential and gives its callers the cluster
   * role (surrounding whitespace is ignored); needs a client token.
   */
  public SecurityConfig withClusterToken(String token) {
    return new SecurityConfig(
        certChain,
        privateKey,
        ca,
        this.token,
        tokenSource,
        checkToken(token, "the cluster token given"),
        "the cluster token given",
        users);
  }

  /**
   * A copy with a random cluster credential that only this process knows: an embedded cluster's, so
   * that clients holding the client token cannot join it, heartbeat or read its metrics.
   */
  public SecurityConfig withRandomClusterToken() {
    byte[] bytes = new byte[32];
    new java.security.SecureRandom().nextBytes(bytes);
    return withClusterToken(java.util.HexFormat.of().formatHex(bytes));
  }

  /** A copy with the cluster credential held in {@code tokenFile} (trimmed); see above. */
  public SecurityConfig withClusterTokenFile(Path tokenFile) {
    String source = "cluster token file " + tokenFile;
    String text = new String(read(tokenFile, "cluster token file").bytes(), StandardCharsets.UTF_8);
    return new SecurityConfig(
        certChain, privateKey, ca, token, tokenSource, checkToken(text, source), source, users);
  }

  /**
   * This config's TLS without any token: for a server whose calls' tokens another layer checks (the
   * Flight middleware of {@link FlightSecurity#addFlightService}, which also takes logins).
   */
  public SecurityConfig tlsOnly() {
    return new SecurityConfig(certChain, privateKey, ca, null, null, null, null, Map.of());
  }

  /** Whether servers of this process serve TLS. */
  public boolean serverTls() {
    return certChain != null;
  }

  /**
   * A copy that also accepts each user's token of {@code usersFile}: calls carrying one run as that
   * user ({@link Callers#user()}), with the clients' role. The file has one {@code user:token-file}
   * line per user (blank lines and lines starting with {@code #} are skipped); a relative token
   * file is read from the users file's folder. User names are letters, digits, {@code . _ -}.
   */
  public SecurityConfig withUsersFile(Path usersFile) {
    Map<String, String> tokens = new LinkedHashMap<>();
    userTokenFiles(usersFile)
        .forEach(
            (user, tokenFile) -> {
              String source = "token file " + tokenFile + " of user '" + user + "'";
              tokens.put(
                  user,
                  checkToken(
                      new String(read(tokenFile, source).bytes(), StandardCharsets.UTF_8), source));
            });
    return new SecurityConfig(
        certChain, privateKey, ca, token, tokenSource, clusterToken, clusterTokenSource, tokens);
  }

  /**
   * Each user's token file as {@code usersFile} names it (see {@link #withUsersFile}), resolved
   * against the users file's folder: servers keep SQL away from them.
   *
   * @throws QuiverException naming a malformed line, a repeated user or an empty file
   */
  public static Map<String, Path> userTokenFiles(Path usersFile) {
    String text = new String(read(usersFile, "users file").bytes(), StandardCharsets.UTF_8);
    Map<String, Path> files = new LinkedHashMap<>();
    int lineNo = 0;
    for (String line : text.split("\\n", -1)) {
      lineNo++;
      String l = line.strip();
      if (l.isEmpty() || l.startsWith("#")) {
        continue;
      }
      int colon = l.indexOf(':');
      String user = colon < 0 ? "" : l.substring(0, colon).strip();
      if (colon < 0 || !USER_NAME.matcher(user).matches() || l.substring(colon + 1).isBlank()) {
        throw new QuiverException(
            "Line "
                + lineNo
                + " of the users file "
                + usersFile
                + " is not 'user:token-file' (a user name of letters, digits, '.', '_' or '-')");
      }
      Path tokenFile = Path.of(l.substring(colon + 1).strip());
      Path parent = usersFile.toAbsolutePath().getParent();
      if (!tokenFile.isAbsolute() && parent != null) {
        tokenFile = parent.resolve(tokenFile);
      }
      if (files.putIfAbsent(user, tokenFile) != null) {
        throw new QuiverException(
            "User '" + user + "' appears twice in the users file " + usersFile);
      }
    }
    if (files.isEmpty()) {
      throw new QuiverException("The users file " + usersFile + " names no user");
    }
    return files;
  }

  /**
   * {@code usersFile} (may be null: none) and its users' token files, then {@code others} that are
   * not null: the secret files a server denies SQL.
   */
  public static Path[] secretFiles(Path usersFile, Path... others) {
    List<Path> files = new ArrayList<>();
    if (usersFile != null) {
      files.add(usersFile);
      files.addAll(userTokenFiles(usersFile).values());
    }
    for (Path p : others) {
      if (p != null) {
        files.add(p);
      }
    }
    return files.toArray(Path[]::new);
  }

  /** Whether {@code name} is a valid user name: letters, digits, {@code . _ -}, 1 to 64. */
  static boolean isUserName(String name) {
    return USER_NAME.matcher(name).matches();
  }

  /** Whether servers of this process know users ({@link #withUsersFile}). */
  public boolean hasUsers() {
    return !users.isEmpty();
  }

  /** Whether this process's client channels use TLS. */
  public boolean clientTls() {
    return ca != null || serverTls();
  }

  /** Whether calls carry, and servers require, a token. */
  public boolean hasToken() {
    return token != null || clusterToken != null || !users.isEmpty();
  }

  /** Whether this process holds a cluster credential separate from the clients' token. */
  public boolean hasClusterToken() {
    return clusterToken != null;
  }

  Pem certChain() {
    return certChain;
  }

  Pem privateKey() {
    return privateKey;
  }

  /** The CA certificates clients verify servers with; null means the JDK's trusted roots. */
  Pem ca() {
    return ca;
  }

  /** The token this process sends: the cluster credential if it has one, else the client's. */
  String token() {
    return clusterToken != null ? clusterToken : token;
  }

  /** The tokens servers of this process accept, with the role each grants. */
  Tokens acceptedTokens() {
    return new Tokens(token, clusterToken, users);
  }

  String tokenSource() {
    return tokenSource;
  }

  private static String checkToken(String text, String source) {
    if (text == null) {
      throw new QuiverException("The cluster token must not be null");
    }
    String t = text.strip();
    if (t.isEmpty()) {
      throw new QuiverException("The cluster token from " + source + " is empty");
    }
    for (int i = 0; i < t.length(); i++) {
      char ch = t.charAt(i);
      // It travels in an HTTP/2 header: printable ASCII only, and no spaces so it is one word.
      if (ch <= ' ' || ch > '~') {
        throw new QuiverException(
            "The cluster token from "
                + source
                + " must be printable ASCII without spaces (character at index "
                + i
                + " is not)");
      }
    }
    return t;
  }

  private static Pem read(Path file, String what) {
    if (file == null) {
      throw new QuiverException("No file given for the " + what);
    }
    try {
      return new Pem(Files.readAllBytes(file), file.toString());
    } catch (IOException e) {
      throw new QuiverException(
          "Cannot read the " + what + " from " + file + ": " + e.getMessage(), e);
    }
  }

  @Override
  public String toString() {
    return "SecurityConfig[serverTls="
        + (certChain == null ? "off" : certChain.source())
        + ", ca="
        + (ca == null ? (serverTls() ? "JDK default" : "none") : ca.source())
        + ", token="
        + (token == null ? "none" : "set")
        + ", clusterToken="
        + (clusterToken == null ? "none" : "set")
        + ", users="
        + users.size()
        + "]";
  }
}
