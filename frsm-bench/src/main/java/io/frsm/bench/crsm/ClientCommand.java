package io.frsm.bench.crsm;

import java.util.Objects;

/**
 * A command as a log entry holds it: the node whose client issued it and that node's request id, so
 * that the leader that proposed it can answer once it is executed. A leader elected later executes
 * it too (it is in the log) but has no client to answer.
 */
public record ClientCommand(int origin, long requestId, Command command) {
  public ClientCommand {
    Objects.requireNonNull(command, "command");
  }
}
