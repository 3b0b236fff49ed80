package dev.quiver.distributed.cli;

import dev.quiver.distributed.wire.WireProtocol;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code -V} of a server process: its name, the release and the wire protocol it speaks. */
public final class WireVersion implements CommandLine.IVersionProvider {
  @Spec CommandSpec spec;

  @Override
  public String[] getVersion() {
    return new String[] {
      spec.name()
          + " "
          + WireProtocol.softwareVersion()
          + " (wire protocol "
          + WireProtocol.VERSION
          + ")"
    };
  }
}
