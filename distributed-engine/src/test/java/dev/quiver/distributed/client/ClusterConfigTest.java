package dev.quiver.distributed.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.distributed.security.SecurityConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A client's cluster settings: plaintext by default, its token never in text. */
@Timeout(60)
class ClusterConfigTest {
  private static final String TOKEN = "s3cr3t-token-4f9a";

  @TempDir Path dir;

  @Test
  void aClusterWithoutSecuritySettingsIsPlaintextWithoutToken() {
    assertThat(new ClusterConfig("localhost", 1).security()).isSameAs(SecurityConfig.none());
  }

  @Test
  void theTokenIsNeverShown() throws Exception {
    Path file = Files.writeString(dir.resolve("token"), "  " + TOKEN + "\n\n");
    ClusterConfig cluster = ClusterConfig.remote("127.0.0.1:50050").withTokenFile(file);
    assertThat(cluster.security().hasToken()).isTrue();
    assertThat(cluster.toString()).doesNotContain(TOKEN);
  }
}
