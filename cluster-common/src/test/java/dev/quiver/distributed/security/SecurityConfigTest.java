package dev.quiver.distributed.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.errors.QuiverException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Building security settings from files, validation, and keeping the token out of text. */
@Timeout(120)
class SecurityConfigTest {
  private static final String TOKEN = "s3cr3t-token-4f9a";

  @TempDir Path dir;

  @Test
  void noneIsPlaintextWithoutToken() {
    SecurityConfig none = SecurityConfig.none();
    assertThat(none.serverTls()).isFalse();
    assertThat(none.clientTls()).isFalse();
    assertThat(none.hasToken()).isFalse();
  }

  @Test
  void tokenFileIsTrimmedAndNeverShown() throws Exception {
    Path file = Files.writeString(dir.resolve("token"), "  " + TOKEN + "\n\n");
    SecurityConfig c = SecurityConfig.fromFiles(null, null, null, file);
    assertThat(c.hasToken()).isTrue();
    assertThat(c.token()).isEqualTo(TOKEN);
    assertThat(c.toString()).doesNotContain(TOKEN).contains("token=set");
    assertThat(new Tokens(TOKEN).toString()).doesNotContain(TOKEN);
  }

  @Test
  void tokensMatchOnlyTheBearerOfTheSameTokenInTheStandardForm() {
    Tokens tokens = new Tokens(TOKEN);
    assertThat(tokens.matches("Bearer " + TOKEN)).isTrue();
    assertThat(tokens.matches("bearer " + TOKEN)).isFalse();
    assertThat(tokens.matches("BEARER " + TOKEN)).isFalse();
    assertThat(tokens.matches("Bearer  " + TOKEN)).isFalse();
    assertThat(tokens.matches("Bearer " + TOKEN + " ")).isFalse();
    assertThat(tokens.matches("Bearer\t" + TOKEN)).isFalse();
    assertThat(tokens.matches(null)).isFalse();
    assertThat(tokens.matches(TOKEN)).isFalse();
    assertThat(tokens.matches("Bearer " + TOKEN + "x")).isFalse();
    assertThat(tokens.matches("Bearer " + TOKEN.substring(1))).isFalse();
    assertThat(tokens.matches("Bearer ")).isFalse();
  }

  @Test
  void theClusterCredentialGrantsTheClusterRoleAndTheClientTokenOnlyTheClientRole()
      throws Exception {
    String cluster = "qv-cluster-token-5ad3c1";
    Path clientFile = Files.writeString(dir.resolve("client-token"), TOKEN);
    Path clusterFile = Files.writeString(dir.resolve("cluster-token"), cluster + "\n");
    SecurityConfig node =
        SecurityConfig.fromFiles(null, null, null, clientFile).withClusterTokenFile(clusterFile);
    assertThat(node.hasClusterToken()).isTrue();
    // A node sends the cluster credential.
    assertThat(node.token()).isEqualTo(cluster);
    assertThat(node.toString()).doesNotContain(cluster).doesNotContain(TOKEN);
    Tokens accepted = node.acceptedTokens();
    assertThat(accepted.authenticate("Bearer " + cluster)).isEqualTo(Role.CLUSTER);
    assertThat(accepted.authenticate("Bearer " + TOKEN)).isEqualTo(Role.CLIENT);
    assertThat(accepted.authenticate("Bearer other")).isNull();
    // Without a cluster credential the single token has every role, as before.
    assertThat(new Tokens(TOKEN, null).authenticate("Bearer " + TOKEN)).isEqualTo(Role.CLUSTER);
    assertThatThrownBy(
            () ->
                SecurityConfig.fromFiles(null, null, null, null).withClusterTokenFile(clusterFile))
        .isInstanceOf(QuiverException.class)
        .hasMessageContaining("--token-file");
    assertThatThrownBy(
            () ->
                SecurityConfig.fromFiles(null, null, null, clientFile)
                    .withClusterTokenFile(clientFile))
        .isInstanceOf(QuiverException.class)
        .hasMessageContaining("token of their own")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain(TOKEN));
  }

  @Test
  void badTokensAreRefusedWithoutQuotingThem() throws Exception {
    Path empty = Files.writeString(dir.resolve("empty"), " \n");
    assertThatThrownBy(() -> SecurityConfig.fromFiles(null, null, null, empty))
        .isInstanceOf(QuiverException.class)
        .hasMessageContaining("empty")
        .hasMessageContaining(empty.toString());
    Path spaced = Files.writeString(dir.resolve("spaced"), "abc def-secret");
    assertThatThrownBy(() -> SecurityConfig.fromFiles(null, null, null, spaced))
        .isInstanceOf(QuiverException.class)
        .hasMessageContaining("printable ASCII")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("def-secret"));
    assertThatThrownBy(
            () -> SecurityConfig.fromFiles(null, null, null, dir.resolve("missing-token")))
        .isInstanceOf(QuiverException.class)
        .hasMessageContaining("missing-token");
  }

  @Test
  void certificateNeedsItsKey() throws Exception {
    Path cert = Files.writeString(dir.resolve("cert.pem"), "not really a certificate");
    assertThatThrownBy(() -> SecurityConfig.fromFiles(cert, null, null, null))
        .isInstanceOf(QuiverException.class)
        .hasMessageContaining("--tls-key");
  }

  @Test
  void nodeSettingsServeAndUseTls() throws Exception {
    TestCertificates certs = TestCertificates.generate(dir.resolve("certs"));
    SecurityConfig node = certs.node(TOKEN);
    assertThat(node.serverTls()).isTrue();
    assertThat(node.clientTls()).isTrue();
    assertThat(node.hasToken()).isTrue();
    assertThat(node.toString()).doesNotContain(TOKEN).contains("node.pem");
    SecurityConfig client = certs.client(null);
    assertThat(client.serverTls()).isFalse();
    assertThat(client.clientTls()).isTrue();
    assertThat(client.hasToken()).isFalse();
  }

  @Test
  void eachUsersTokenNamesItsUserWithTheClientRole() throws Exception {
    String cluster = "qv-cluster-token-77e0";
    Path clientFile = Files.writeString(dir.resolve("client-token"), TOKEN);
    Path clusterFile = Files.writeString(dir.resolve("cluster-token"), cluster);
    Files.createDirectories(dir.resolve("tokens"));
    Files.writeString(dir.resolve("tokens/alice.token"), "qv-alice-01\n");
    Files.writeString(dir.resolve("bob.token"), "qv-bob-02");
    Path users =
        Files.writeString(
            dir.resolve("users"),
            "# user:token-file\n\nalice:tokens/alice.token\n  bob : "
                + dir.resolve("bob.token")
                + "\n");
    SecurityConfig node =
        SecurityConfig.fromFiles(null, null, null, clientFile)
            .withClusterTokenFile(clusterFile)
            .withUsersFile(users);
    assertThat(node.hasUsers()).isTrue();
    assertThat(node.toString()).contains("users=2").doesNotContain("qv-alice-01");
    Tokens accepted = node.acceptedTokens();
    assertThat(accepted.authenticate("Bearer qv-alice-01")).isEqualTo(Role.CLIENT);
    assertThat(accepted.user("Bearer qv-alice-01")).isEqualTo("alice");
    assertThat(accepted.user("Bearer qv-bob-02")).isEqualTo("bob");
    assertThat(accepted.user("Bearer " + TOKEN)).as("the shared client token has no user").isNull();
    assertThat(accepted.user("Bearer " + cluster)).isNull();
    assertThat(accepted.authenticate("Bearer qv-carol-03")).isNull();
    assertThat(accepted.user("Bearer qv-carol-03")).isNull();
    // Servers deny SQL the users file and every user's token file.
    assertThat(SecurityConfig.secretFiles(users, null, clientFile))
        .containsExactly(
            users, dir.resolve("tokens/alice.token"), dir.resolve("bob.token"), clientFile);
    assertThat(SecurityConfig.secretFiles(null, clientFile)).containsExactly(clientFile);
    // Users alone secure a server: their tokens are the clients'.
    assertThat(SecurityConfig.none().withUsersFile(users).hasToken()).isTrue();
  }

  @Test
  void aBadUsersFileIsRefusedNamingTheLine() throws Exception {
    Files.writeString(dir.resolve("a.token"), "qv-a-token");
    Files.writeString(dir.resolve("b.token"), "qv-a-token");
    Files.writeString(dir.resolve("client.token"), TOKEN);
    assertThatThrownBy(
            () ->
                SecurityConfig.none()
                    .withUsersFile(Files.writeString(dir.resolve("u1"), "alice a.token\n")))
        .isInstanceOf(QuiverException.class)
        .hasMessageContaining("Line 1")
        .hasMessageContaining("'user:token-file'");
    assertThatThrownBy(
            () ->
                SecurityConfig.none()
                    .withUsersFile(
                        Files.writeString(dir.resolve("u2"), "alice:a.token\nalice:b.token\n")))
        .hasMessageContaining("User 'alice' appears twice");
    assertThatThrownBy(
            () ->
                SecurityConfig.none()
                    .withUsersFile(
                        Files.writeString(dir.resolve("u3"), "alice:a.token\nbob:b.token\n")))
        .hasMessageContaining("share a token")
        .hasMessageNotContaining("qv-a-token");
    assertThatThrownBy(
            () ->
                SecurityConfig.none()
                    .withUsersFile(Files.writeString(dir.resolve("u4"), "carol:missing.token\n")))
        .hasMessageContaining("user 'carol'");
    assertThatThrownBy(
            () ->
                SecurityConfig.fromFiles(null, null, null, dir.resolve("client.token"))
                    .withUsersFile(Files.writeString(dir.resolve("u5"), "dave:client.token\n")))
        .hasMessageContaining("token of user 'dave' is also the clients' token");
    assertThatThrownBy(
            () ->
                SecurityConfig.none()
                    .withUsersFile(Files.writeString(dir.resolve("u6"), "# none\n")))
        .hasMessageContaining("names no user");
  }
}
