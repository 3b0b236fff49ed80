package dev.quiver.distributed.security;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A test CA and a certificate it signed for 127.0.0.1 and localhost, made with the JDK's {@code
 * keytool} into a directory the test owns: {@code ca.pem}, {@code node.pem} (leaf then CA) and
 * {@code node.key} (unencrypted PKCS#8). Nothing is downloaded.
 */
public final class TestCertificates {
  private static final String PASSWORD = "test-store-password";

  private final Path dir;

  private TestCertificates(Path dir) {
    this.dir = dir;
  }

  /** Generates the CA and the node certificate into {@code dir} (about two seconds). */
  public static TestCertificates generate(Path dir) throws Exception {
    Files.createDirectories(dir);
    Path caStore = dir.resolve("ca.p12");
    Path nodeStore = dir.resolve("node.p12");
    keytool(
        dir,
        "-genkeypair",
        "-alias",
        "ca",
        "-keyalg",
        "RSA",
        "-keysize",
        "2048",
        "-dname",
        "CN=Quiver Test CA",
        "-ext",
        "bc:c",
        "-validity",
        "3",
        "-keystore",
        caStore.toString(),
        "-storetype",
        "PKCS12",
        "-storepass",
        PASSWORD);
    keytool(
        dir,
        "-exportcert",
        "-rfc",
        "-alias",
        "ca",
        "-file",
        dir.resolve("ca.pem").toString(),
        "-keystore",
        caStore.toString(),
        "-storepass",
        PASSWORD);
    keytool(
        dir,
        "-genkeypair",
        "-alias",
        "node",
        "-keyalg",
        "RSA",
        "-keysize",
        "2048",
        "-dname",
        "CN=localhost",
        "-validity",
        "3",
        "-keystore",
        nodeStore.toString(),
        "-storetype",
        "PKCS12",
        "-storepass",
        PASSWORD);
    keytool(
        dir,
        "-certreq",
        "-alias",
        "node",
        "-file",
        dir.resolve("node.csr").toString(),
        "-keystore",
        nodeStore.toString(),
        "-storepass",
        PASSWORD);
    keytool(
        dir,
        "-gencert",
        "-rfc",
        "-alias",
        "ca",
        "-validity",
        "3",
        "-infile",
        dir.resolve("node.csr").toString(),
        "-outfile",
        dir.resolve("leaf.pem").toString(),
        "-ext",
        "san=ip:127.0.0.1,dns:localhost",
        "-ext",
        "ku:c=digitalSignature,keyEncipherment",
        "-ext",
        "eku=serverAuth,clientAuth",
        "-keystore",
        caStore.toString(),
        "-storepass",
        PASSWORD);
    Files.writeString(
        dir.resolve("node.pem"),
        Files.readString(dir.resolve("leaf.pem")) + Files.readString(dir.resolve("ca.pem")));
    KeyStore store = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(nodeStore)) {
      store.load(in, PASSWORD.toCharArray());
    }
    PrivateKey key = (PrivateKey) store.getKey("node", PASSWORD.toCharArray());
    String pem =
        "-----BEGIN PRIVATE KEY-----\n"
            + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                .encodeToString(key.getEncoded())
            + "\n-----END PRIVATE KEY-----\n";
    Files.writeString(dir.resolve("node.key"), pem);
    return new TestCertificates(dir);
  }

  private static void keytool(Path dir, String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
    cmd.add("-noprompt");
    cmd.addAll(List.of(args));
    Path log = dir.resolve("keytool.log");
    Process p =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException("keytool " + args[0] + " timed out");
    }
    if (p.exitValue() != 0) {
      throw new IOException(
          "keytool " + args[0] + " failed (" + p.exitValue() + "): " + Files.readString(log));
    }
  }

  /** The CA certificate (PEM). */
  public Path ca() {
    return dir.resolve("ca.pem");
  }

  /** The node's certificate chain (PEM). */
  public Path cert() {
    return dir.resolve("node.pem");
  }

  /** The node's private key (PKCS#8 PEM). */
  public Path key() {
    return dir.resolve("node.key");
  }

  /** Writes {@code token} (with a trailing newline, as editors do) to a file; returns it. */
  public Path tokenFile(String name, String token) throws IOException {
    return Files.writeString(dir.resolve(name), token + "\n");
  }

  /** Settings of a cluster node: serves TLS, verifies peers with the CA, uses {@code token}. */
  public SecurityConfig node(String token) throws IOException {
    return SecurityConfig.fromFiles(
        cert(), key(), ca(), token == null ? null : tokenFile("node-token", token));
  }

  /** Settings of a client: TLS verified with the CA, and {@code token} (null for none). */
  public SecurityConfig client(String token) {
    SecurityConfig c = SecurityConfig.none().withTrustedCa(ca());
    return token == null ? c : c.withToken(token);
  }
}
