package io.frsm.testkit.history;

import static io.frsm.testkit.history.Ops.cas;
import static io.frsm.testkit.history.Ops.create;
import static io.frsm.testkit.history.Ops.delete;
import static io.frsm.testkit.history.Ops.fence;
import static io.frsm.testkit.history.Ops.found;
import static io.frsm.testkit.history.Ops.get;
import static io.frsm.testkit.history.Ops.keyExists;
import static io.frsm.testkit.history.Ops.mismatch;
import static io.frsm.testkit.history.Ops.mismatchAbsent;
import static io.frsm.testkit.history.Ops.v;
import static io.frsm.testkit.history.Ops.written;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

class HistoryJsonTest {

  private static List<Operation> roundTrip(List<Operation> history) throws IOException {
    StringWriter out = new StringWriter();
    HistoryJsonWriter.write(history, out);
    return HistoryJsonReader.read(new BufferedReader(new StringReader(out.toString())));
  }

  private static HistoryFormatException rejected(String text) {
    return assertThrows(
        HistoryFormatException.class,
        () -> HistoryJsonReader.read(new BufferedReader(new StringReader(text))));
  }

  private static final String GOOD_LINE =
      "{\"client\":1,\"op\":\"get\",\"key\":\"k\",\"input\":{},\"output\":\"unknown\","
          + "\"call\":1,\"return\":2}";

  @Test
  void everyOutputKind_roundTrips() throws IOException {
    List<Operation> history =
        List.of(
            create(1, "a", 0, 10, written(0, 0)),
            create(2, "b", 1, 11, keyExists("a", 0, 0)),
            get(3, 2, 12, found("a", 0, 0)),
            get(3, 13, 14, Output.ABSENT),
            cas(1, v(0, 0), "c", 20, 30, written(0, 1)),
            cas(2, v(0, 0), "d", 21, 31, mismatch("c", 0, 1)),
            delete(1, v(0, 1), 40, 50, Output.DELETED),
            delete(2, v(0, 1), 41, 51, mismatchAbsent()),
            fence(3, 60, 70, Output.ABSENT),
            fence(3, 71, 72, found("x", 4, 2)),
            cas(1, v(9, 9), "e", 80, 90, Output.UNKNOWN),
            get(2, 81, 91, Output.NOT_EXECUTED));
    assertEquals(history, roundTrip(history));
  }

  @Test
  void casLine_hasTheDocumentedShape() {
    assertEquals(
        "{\"client\":1,\"op\":\"cas\",\"key\":\"k\",\"input\":{\"expected\":[3,4],\"value\":\"x\"},"
            + "\"output\":{\"ok\":true,\"version\":[3,5]},\"call\":123,\"return\":456}",
        HistoryJsonWriter.toLine(cas(1, v(3, 4), "x", 123, 456, written(3, 5))));
  }

  @Test
  void textNeedingEscapes_roundTripsAsAString() throws IOException {
    String tricky = "quote\" back\\slash é 漢字 😀 /";
    Operation op = create(1, tricky, 0, 1, written(0, 0));
    String line = HistoryJsonWriter.toLine(op);
    assertTrue(line.contains("\"value\":\"quote\\\" back\\\\slash é 漢字 😀 /\""), line);
    assertEquals(List.of(op), roundTrip(List.of(op)));
  }

  @Test
  void unicodeLineSeparators_areWrittenEscaped() throws IOException {
    Operation op = create(1, "a\u2028b\u2029c", 0, 1, written(0, 0));
    String line = HistoryJsonWriter.toLine(op);
    assertTrue(line.contains("\"value\":\"a\\u2028b\\u2029c\""), line);
    assertTrue(line.indexOf('\u2028') < 0 && line.indexOf('\u2029') < 0, line);
    assertEquals(List.of(op), roundTrip(List.of(op)));
  }

  @Test
  void binaryAndControlCharacterBytes_areWrittenAsBase64() throws IOException {
    byte[][] samples = {{0, 1, 2}, {(byte) 0xff, (byte) 0xfe}, "tab\there".getBytes(), {}};
    for (byte[] sample : samples) {
      Operation op =
          new Operation(
              7,
              OperationKind.CREATE,
              Bytes.of(sample),
              Input.create(Bytes.of(sample)),
              written(0, 0),
              0,
              1);
      String line = HistoryJsonWriter.toLine(op);
      boolean printable = Bytes.of(sample).asPrintableText().isPresent();
      assertEquals(!printable, line.contains("{\"base64\":"), line);
      assertEquals(List.of(op), roundTrip(List.of(op)));
    }
  }

  @Test
  void base64Form_isAcceptedEvenForPrintableBytes() throws HistoryFormatException {
    Operation op =
        HistoryJsonReader.parseLine(
            GOOD_LINE.replace("\"key\":\"k\"", "\"key\":{\"base64\":\"aw==\"}"), 1);
    assertEquals(Bytes.utf8("k"), op.key());
  }

  @Test
  void randomBytes_roundTrip() throws IOException {
    Random random = new Random(42);
    for (int i = 0; i < 500; i++) {
      byte[] key = new byte[random.nextInt(8)];
      byte[] value = new byte[random.nextInt(8)];
      random.nextBytes(key);
      random.nextBytes(value);
      if (random.nextBoolean()) {
        value = ("t" + random.nextInt()).getBytes();
      }
      Operation op =
          new Operation(
              random.nextLong(),
              OperationKind.FENCE,
              Bytes.of(key),
              Input.none(),
              new Output.Found(new VersionedValue(Bytes.of(value), v(i, i + 1))),
              i,
              i + random.nextInt(1000));
      assertEquals(List.of(op), roundTrip(List.of(op)));
    }
  }

  @Test
  void malformedLine_isRejectedNamingItsLineNumber() {
    HistoryFormatException e = rejected(GOOD_LINE + "\n" + GOOD_LINE + "\n{\"client\":1,\n");
    assertEquals(3, e.lineNumber());
    assertTrue(e.getMessage().startsWith("history line 3: malformed JSON"), e.getMessage());
  }

  @Test
  void emptyLine_isRejected() {
    assertEquals(2, rejected(GOOD_LINE + "\n\n" + GOOD_LINE).lineNumber());
  }

  @Test
  void unknownMember_isRejected() {
    HistoryFormatException e = rejected(GOOD_LINE.replace("\"call\"", "\"extra\":1,\"call\""));
    assertTrue(e.getMessage().contains("unknown member \"extra\""), e.getMessage());
  }

  @Test
  void missingMember_isRejected() {
    HistoryFormatException e = rejected(GOOD_LINE.replace(",\"return\":2", ""));
    assertTrue(e.getMessage().contains("lacks member \"return\""), e.getMessage());
  }

  @Test
  void outputTheOperationCannotHave_isRejected() {
    HistoryFormatException e =
        rejected(GOOD_LINE.replace("\"unknown\"", "{\"ok\":true,\"version\":[1,2]}"));
    assertTrue(e.getMessage().contains("get cannot end with Written"), e.getMessage());
  }

  @Test
  void inputTheOperationDoesNotTake_isRejected() {
    HistoryFormatException e =
        rejected(GOOD_LINE.replace("\"input\":{}", "\"input\":{\"expected\":[0,0]}"));
    assertTrue(e.getMessage().contains("get takes no expected version"), e.getMessage());
  }

  @Test
  void unknownOp_isRejected() {
    HistoryFormatException e = rejected(GOOD_LINE.replace("\"get\"", "\"put\""));
    assertTrue(e.getMessage().contains("unknown op \"put\""), e.getMessage());
  }

  @Test
  void badValues_areRejected() {
    for (String bad :
        List.of(
            GOOD_LINE.replace("\"call\":1", "\"call\":1.5"),
            GOOD_LINE.replace("\"call\":1", "\"call\":\"1\""),
            GOOD_LINE.replace("\"call\":1", "\"call\":99999999999999999999"),
            GOOD_LINE.replace("\"key\":\"k\"", "\"key\":{\"base64\":\"!!\"}"),
            GOOD_LINE.replace("\"key\":\"k\"", "\"key\":\"\\ud800\""),
            GOOD_LINE.replace("\"key\":\"k\"", "\"key\":\"k\",\"key\":\"j\""),
            GOOD_LINE.replace("\"unknown\"", "\"lost\""),
            GOOD_LINE + "x",
            GOOD_LINE.replace("\"return\":2", "\"return\":0"))) {
      assertEquals(1, rejected(bad).lineNumber(), bad);
    }
  }

  @Test
  void casMismatchWithBothAbsentAndValue_isRejected() {
    String line =
        "{\"client\":1,\"op\":\"delete\",\"key\":\"k\",\"input\":{\"expected\":[0,0]},"
            + "\"output\":{\"ok\":false,\"casMismatch\":{\"absent\":true,\"value\":\"a\","
            + "\"version\":[0,1]}},\"call\":1,\"return\":2}";
    assertTrue(rejected(line).getMessage().contains("either absent or value and version"));
  }

  @Test
  void documentedExample_parsesAndIsLinearizable() throws IOException {
    String example =
        String.join(
            "\n",
            "{\"client\":1,\"op\":\"create\",\"key\":\"k1\",\"input\":{\"value\":\"a\"},\"output\":{\"ok\":true,\"version\":[7,0]},\"call\":100,\"return\":250}",
            "{\"client\":2,\"op\":\"cas\",\"key\":\"k1\",\"input\":{\"expected\":[7,0],\"value\":\"b\"},\"output\":\"unknown\",\"call\":300,\"return\":900}",
            "{\"client\":1,\"op\":\"get\",\"key\":\"k1\",\"input\":{},\"output\":{\"ok\":true,\"value\":\"a\",\"version\":[7,0]},\"call\":400,\"return\":450}",
            "{\"client\":2,\"op\":\"fence\",\"key\":\"k1\",\"input\":{},\"output\":{\"ok\":true,\"value\":\"b\",\"version\":[7,2]},\"call\":1000,\"return\":1100}",
            "{\"client\":1,\"op\":\"delete\",\"key\":\"k1\",\"input\":{\"expected\":[7,1]},\"output\":{\"ok\":false,\"casMismatch\":{\"value\":\"b\",\"version\":[7,2]}},\"call\":1200,\"return\":1300}",
            "{\"client\":3,\"op\":\"create\",\"key\":{\"base64\":\"AP8=\"},\"input\":{\"value\":\"x\"},\"output\":\"notExecuted\",\"call\":1210,\"return\":1220}");
    List<Operation> history = HistoryJsonReader.read(new BufferedReader(new StringReader(example)));
    assertEquals(6, history.size());
    assertEquals(Optional.of(Bytes.utf8("b")), history.get(1).input().value());
    assertTrue(new LinearizabilityChecker().check(history).isLinearizable());
  }
}
