package io.frsm.server.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ProgressLineTest {
  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  private final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

  private String printed() {
    return bytes.toString(StandardCharsets.UTF_8).replace(System.lineSeparator(), "\n");
  }

  @Test
  void onATerminal_theLineIsRewrittenInPlace_padded_andEventsGoAboveIt() {
    ProgressLine line = new ProgressLine(out, true);
    line.update("t=1s  100 ops/s");
    line.update("t=2s  9 ops/s");
    line.event(">>> killed");
    line.update("t=3s  50 ops/s");
    line.finish();
    assertEquals(
        "\rt=1s  100 ops/s"
            + "\rt=2s  9 ops/s  " // padded over the longer line it replaces
            + "\r>>> killed   \nt=2s  9 ops/s" // the event above, the live line redrawn below
            + "\rt=3s  50 ops/s"
            + "\n",
        printed());
  }

  @Test
  void elsewhere_eachUpdateIsALineOfItsOwn_withoutCarriageReturns() {
    ProgressLine line = new ProgressLine(out, false);
    line.update("t=1s  100 ops/s");
    line.event(">>> killed");
    line.update("t=2s  9 ops/s");
    line.finish();
    assertEquals("t=1s  100 ops/s\n>>> killed\nt=2s  9 ops/s\n", printed());
  }

  @Test
  void anEventBeforeAnyProgress_isAPlainLine() {
    ProgressLine line = new ProgressLine(out, true);
    line.event(">>> starting");
    line.finish();
    assertEquals(">>> starting\n", printed());
  }

  @Test
  void anotherStreamThanStandardOutput_isNeverLive() {
    ProgressLine line = ProgressLine.forOutput(out);
    line.update("t=1s");
    assertEquals("t=1s\n", printed());
  }
}
