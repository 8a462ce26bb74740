package io.frsm.server.node;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StopSequenceTest {

  @Test
  void run_runsEveryStepInOrder_evenAfterFailures_andNamesTheFailedOnes() {
    List<String> ran = new ArrayList<>();
    StopSequence stop =
        new StopSequence("node 1")
            .then("first", () -> ran.add("first"))
            .then(
                "second",
                () -> {
                  ran.add("second");
                  throw new IOException("disk gone");
                })
            .then(
                "third",
                () -> {
                  ran.add("third");
                  throw new IllegalStateException("already closed");
                })
            .then("fourth", () -> ran.add("fourth"));

    List<String> failed = stop.run();

    assertEquals(List.of("first", "second", "third", "fourth"), ran);
    assertEquals(List.of("second", "third"), failed);
  }

  @Test
  void thenIf_addsOnlyWhenTheConditionHolds_andThenClose_skipsNull() {
    List<String> closed = new ArrayList<>();
    StopSequence stop =
        new StopSequence("node 1")
            .thenIf(false, "skipped", () -> closed.add("skipped"))
            .thenIf(true, "kept", () -> closed.add("kept"))
            .thenClose("absent", null)
            .thenClose("present", () -> closed.add("present"));

    assertEquals(List.of("kept", "absent", "present"), stop.names());
    assertEquals(List.of(), stop.run());
    assertEquals(List.of("kept", "present"), closed);
  }
}
