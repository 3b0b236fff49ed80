package dev.quiver.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.distributed.wire.WireProtocol;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class SchedulerMainTest {
  @Test
  void versionPrintsTheReleaseAndProtocol() {
    StringWriter out = new StringWriter();
    CommandLine cli = new CommandLine(new SchedulerMain()).setOut(new PrintWriter(out));
    assertThat(cli.execute("-V")).isZero();
    assertThat(out.toString().strip())
        .startsWith("quiver-scheduler ")
        .contains("wire protocol " + WireProtocol.VERSION);
  }
}
