package dev.quiver.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

@Timeout(30)
class ExecutorMainTest {

  @TempDir Path workDir;

  @Test
  void byteSizesUseBinaryUnits() {
    assertThat(ExecutorMain.parseBytes("1048576")).isEqualTo(1L << 20);
    assertThat(ExecutorMain.parseBytes("512k")).isEqualTo(512L << 10);
    assertThat(ExecutorMain.parseBytes("512M")).isEqualTo(512L << 20);
    assertThat(ExecutorMain.parseBytes("2g")).isEqualTo(2L << 30);
    assertThat(ExecutorMain.parseBytes("2GB")).isEqualTo(2L << 30);
  }

  @Test
  void badByteSizeSaysWhatIsExpected() {
    assertThatThrownBy(() -> ExecutorMain.parseBytes("two gigs"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'two gigs' is not a byte size");
    assertThatThrownBy(() -> ExecutorMain.parseBytes("0"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static String run(String... args) {
    StringWriter err = new StringWriter();
    CommandLine cli = new CommandLine(new ExecutorMain()).setErr(new PrintWriter(err));
    assertThat(cli.execute(args)).isEqualTo(2);
    return err.toString();
  }

  @Test
  void badSecurityFilesAreUsageErrorsThatNeverQuoteTheToken() throws Exception {
    String base = "--scheduler localhost:50050 --work-dir " + workDir;
    assertThat(run((base + " --token-file " + workDir.resolve("no-token")).split(" ")))
        .contains("token file")
        .contains("no-token");
    Path bad = java.nio.file.Files.writeString(workDir.resolve("bad-token"), "has a secret-part");
    assertThat(run((base + " --token-file " + bad).split(" ")))
        .contains("printable ASCII")
        .doesNotContain("secret-part");
    Path cert = java.nio.file.Files.writeString(workDir.resolve("cert.pem"), "not a certificate");
    assertThat(run((base + " --tls-cert " + cert).split(" "))).contains("--tls-key");
  }

  @Test
  void versionPrintsTheReleaseAndProtocol() {
    StringWriter out = new StringWriter();
    CommandLine cli = new CommandLine(new ExecutorMain()).setOut(new PrintWriter(out));
    assertThat(cli.execute("-V")).isZero();
    assertThat(out.toString().strip())
        .startsWith("quiver-executor ")
        .contains("wire protocol " + dev.quiver.distributed.wire.WireProtocol.VERSION);
  }

  @Test
  void badCommandLinesAreUsageErrors() {
    assertThat(run("--port", "50061")).contains("--scheduler").contains("--work-dir");
    assertThat(
            run(
                "--scheduler",
                "localhost:50050",
                "--work-dir",
                workDir.toString(),
                "--memory",
                "lots"))
        .contains("'lots' is not a byte size");
    assertThat(run("--scheduler", "localhost", "--work-dir", workDir.toString()))
        .contains("--scheduler must be HOST:PORT, got 'localhost'");
  }

  @Test
  void classpathTakesCommaSeparatedJars() {
    ExecutorMain main = new ExecutorMain();
    new CommandLine(main)
        .parseArgs(
            "--scheduler",
            "localhost:50050",
            "--work-dir",
            workDir.toString(),
            "--classpath",
            "a.jar,lib/b.jar");
    assertThat(main.classpath).containsExactly(Path.of("a.jar"), Path.of("lib/b.jar"));
  }

  @Test
  void aMissingExtensionJarIsAUsageError() {
    assertThat(
            run(
                "--scheduler",
                "127.0.0.1:1",
                "--port",
                "0",
                "--work-dir",
                workDir.toString(),
                "--classpath",
                workDir.resolve("missing.jar").toString()))
        .contains("missing.jar does not exist");
  }
}
