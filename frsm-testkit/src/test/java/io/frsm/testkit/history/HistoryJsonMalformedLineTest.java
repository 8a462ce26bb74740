package io.frsm.testkit.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringReader;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Bad input of every kind ends in a {@link HistoryFormatException} that names the line: never in
 * another exception, whatever the JSON library underneath throws.
 */
class HistoryJsonMalformedLineTest {
  private static final String GOOD_GET =
      "{\"client\":1,\"op\":\"get\",\"key\":\"k\",\"input\":{},"
          + "\"output\":{\"ok\":true,\"value\":\"a\",\"version\":[7,0]},\"call\":1,\"return\":2}";
  private static final String GOOD_CAS =
      "{\"client\":2,\"op\":\"cas\",\"key\":{\"base64\":\"AP8=\"},"
          + "\"input\":{\"expected\":[7,0],\"value\":\"b\"},"
          + "\"output\":{\"ok\":false,\"casMismatch\":{\"absent\":true}},\"call\":3,\"return\":9}";
  private static final String GOOD_DELETE =
      "{\"client\":3,\"op\":\"delete\",\"key\":\"k\",\"input\":{\"expected\":[7,1]},"
          + "\"output\":\"unknown\",\"call\":10,\"return\":20}";

  /** Reads {@code bad} as the third line of a history; returns the exception, checked. */
  private static HistoryFormatException rejectedOnLine3(String bad) {
    String history = GOOD_GET + "\n" + GOOD_CAS + "\n" + bad + "\n" + GOOD_DELETE + "\n";
    HistoryFormatException e =
        assertThrows(
            HistoryFormatException.class,
            () -> HistoryJsonReader.read(new BufferedReader(new StringReader(history))),
            bad);
    assertEquals(3, e.lineNumber(), bad);
    assertTrue(e.getMessage().startsWith("history line 3: "), e.getMessage());
    return e;
  }

  private static void assertMalformedJson(String bad) {
    HistoryFormatException e = rejectedOnLine3(bad);
    assertTrue(e.getMessage().startsWith("history line 3: malformed JSON: "), e.getMessage());
    assertTrue(e.getMessage().contains(" at character "), e.getMessage());
  }

  private static void assertRejectedSaying(String bad, String problem) {
    HistoryFormatException e = rejectedOnLine3(bad);
    assertTrue(e.getMessage().contains(problem), bad + " -> " + e.getMessage());
  }

  @Test
  void goodLines_areRead() throws IOException {
    String history = GOOD_GET + "\n" + GOOD_CAS + "\n" + GOOD_DELETE + "\n";
    assertEquals(3, HistoryJsonReader.read(new BufferedReader(new StringReader(history))).size());
  }

  @Test
  void syntaxErrors_areMalformedJson() {
    for (String bad :
        List.of(
            "{",
            "{\"client\":1,",
            GOOD_GET.substring(0, GOOD_GET.length() - 1),
            GOOD_GET.replace("\"client\":1", "\"client\" 1"),
            GOOD_GET.replace("\"client\":1", "\"client\":1,"),
            GOOD_GET.replace("\"client\":1,", "\"client\":1,,"),
            GOOD_GET.replace("\"input\":{}", "\"input\":{,}"),
            GOOD_GET.replace("[7,0]", "[7,0,]"),
            GOOD_GET.replace("\"key\":\"k\"", "\"key\":'k'"),
            GOOD_GET.replace("\"key\":\"k\"", "key:\"k\""),
            GOOD_GET.replace("\"key\":\"k\"", "\"key\":\"k"),
            GOOD_GET.replace("\"key\":\"k\"", "\"key\":\"a\tb\""),
            GOOD_GET.replace("\"key\":\"k\"", "\"key\":\"a\\xb\""),
            GOOD_GET.replace("\"key\":\"k\"", "\"key\":\"\\u12\""),
            GOOD_GET.replace("\"key\":\"k\"", "\"key\":\"\\uzzzz\""),
            GOOD_GET.replace("\"call\":1", "\"call\":01"),
            GOOD_GET.replace("\"call\":1", "\"call\":+1"),
            GOOD_GET.replace("\"call\":1", "\"call\":-"),
            GOOD_GET.replace("\"call\":1", "\"call\":NaN"),
            GOOD_GET.replace("\"call\":1", "\"call\":tru"),
            GOOD_GET.replace("\"call\":1", "\"call\":1/*note*/"),
            GOOD_GET + "x",
            GOOD_GET + "{}",
            GOOD_GET + GOOD_GET,
            "x" + GOOD_GET)) {
      assertMalformedJson(bad);
    }
  }

  @Test
  void deepNesting_isRefusedBeforeItCostsStack() {
    assertRejectedSaying(
        "[".repeat(100_000) + "]".repeat(100_000), "malformed JSON: Document nesting depth");
  }

  @Test
  void duplicateMember_isMalformedJson() {
    assertMalformedJson(GOOD_GET.replace("\"call\":1", "\"call\":1,\"call\":1"));
    assertMalformedJson(GOOD_GET.replace("\"ok\":true", "\"ok\":true,\"ok\":true"));
  }

  @Test
  void otherJsonValueThanAnObject_isRejected() {
    for (String bad : List.of("1", "\"line\"", "[]", "null", "true", "[" + GOOD_GET + "]")) {
      assertRejectedSaying(bad, "the line must be an object");
    }
  }

  @Test
  void nullMembers_areWrongTypes() {
    assertRejectedSaying(GOOD_GET.replace("\"client\":1", "\"client\":null"), "client must be");
    assertRejectedSaying(GOOD_GET.replace("\"op\":\"get\"", "\"op\":null"), "op must be");
    assertRejectedSaying(GOOD_GET.replace("\"key\":\"k\"", "\"key\":null"), "key must be");
    assertRejectedSaying(GOOD_GET.replace("\"input\":{}", "\"input\":null"), "input must be");
    assertRejectedSaying(GOOD_DELETE.replace("\"unknown\"", "null"), "output must be");
    assertRejectedSaying(GOOD_GET.replace("[7,0]", "null"), "output.version must be");
    assertRejectedSaying(GOOD_GET.replace("[7,0]", "[7,null]"), "output.version[1] must be");
    assertRejectedSaying(GOOD_GET.replace("\"ok\":true", "\"ok\":null"), "output.ok must be");
  }

  @Test
  void numbersThatAreNotLongs_areRejected() {
    assertRejectedSaying(GOOD_GET.replace("\"call\":1", "\"call\":1.0"), "must be an integer");
    assertRejectedSaying(GOOD_GET.replace("\"call\":1", "\"call\":1e3"), "must be an integer");
    assertRejectedSaying(
        GOOD_GET.replace("\"client\":1", "\"client\":9223372036854775808"), "out of range");
    assertRejectedSaying(
        GOOD_GET.replace("\"client\":1", "\"client\":-9223372036854775809"), "out of range");
    assertRejectedSaying(GOOD_GET.replace("[7,0]", "[-7,0]"), "epoch must be >= 0");
  }

  @Test
  void extremeLongs_areRead() throws HistoryFormatException {
    Operation op =
        HistoryJsonReader.parseLine(
            GOOD_GET
                .replace("\"client\":1", "\"client\":-9223372036854775808")
                .replace("\"return\":2", "\"return\":9223372036854775807"),
            1);
    assertEquals(Long.MIN_VALUE, op.client());
    assertEquals(Long.MAX_VALUE, op.returnNanos());
  }

  @Test
  void wrongShapes_areRejected() {
    assertRejectedSaying(GOOD_GET.replace("[7,0]", "[7,0,1]"), "[epoch, timestamp]");
    assertRejectedSaying(GOOD_GET.replace("[7,0]", "{\"epoch\":7}"), "[epoch, timestamp]");
    assertRejectedSaying(GOOD_GET.replace("\"key\":\"k\"", "\"key\":5"), "key must be an object");
    assertRejectedSaying(
        GOOD_CAS.replace("\"AP8=\"}", "\"AP8=\",\"hex\":\"00ff\"}"), "unknown member \"hex\"");
    assertRejectedSaying(GOOD_CAS.replace("\"absent\":true", "\"absent\":false"), "must be true");
    assertRejectedSaying(GOOD_GET.replace("\"ok\":true", "\"ok\":\"true\""), "true or false");
    assertRejectedSaying(GOOD_GET.replace("\"op\":\"get\"", "\"op\":\"GET\""), "unknown op");
    assertRejectedSaying(GOOD_GET.replace(",\"version\":[7,0]", ""), "needs both value");
  }

  @Test
  void blankLine_isRejected() {
    assertRejectedSaying("", "empty line");
    assertRejectedSaying("  \t", "empty line");
  }

  /**
   * Random edits of good lines (a character deleted, replaced or inserted, a cut): every result is
   * either a history line or a {@link HistoryFormatException} for its line, never anything else.
   */
  @Test
  void randomlyCorruptedLines_failOnlyWithHistoryFormatException() {
    Random random = new Random(20_240_517);
    String alphabet = "{}[]:,\"\\ -0123456789.eE+abtrufnlsu\u00e9\u2028\ud800";
    List<String> goodLines = List.of(GOOD_GET, GOOD_CAS, GOOD_DELETE);
    int rejected = 0;
    for (int i = 0; i < 20_000; i++) {
      StringBuilder line = new StringBuilder(goodLines.get(random.nextInt(goodLines.size())));
      for (int edits = 1 + random.nextInt(3); edits > 0 && line.length() > 0; edits--) {
        int at = random.nextInt(line.length());
        char c = alphabet.charAt(random.nextInt(alphabet.length()));
        switch (random.nextInt(4)) {
          case 0 -> line.deleteCharAt(at);
          case 1 -> line.setCharAt(at, c);
          case 2 -> line.insert(at, c);
          default -> line.setLength(at);
        }
      }
      int lineNumber = 1 + random.nextInt(1000);
      try {
        HistoryJsonReader.parseLine(line.toString(), lineNumber);
      } catch (HistoryFormatException e) {
        assertEquals(lineNumber, e.lineNumber(), line::toString);
        rejected++;
      } catch (RuntimeException e) {
        fail("line " + line + " threw " + e, e);
      }
    }
    assertTrue(rejected > 10_000, "most corruptions are caught: " + rejected);
  }
}
