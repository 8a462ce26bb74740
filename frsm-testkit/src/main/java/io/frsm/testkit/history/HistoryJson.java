package io.frsm.testkit.history;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonpCharacterEscapes;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;

/**
 * The Jackson setup of the JSON-lines history format (docs/formats/history.md), shared by {@link
 * HistoryJsonReader} and {@link HistoryJsonWriter}. Jackson's defaults already refuse what RFC 8259
 * refuses (comments, single quotes, leading zeros, NaN, unescaped control characters, trailing
 * commas); on top of them a line may not repeat a member or carry anything after its object. The
 * writer escapes the Unicode line and paragraph separators besides what JSON requires.
 *
 * <p>Thread-safe: configured once here and never reconfigured.
 */
final class HistoryJson {
  /**
   * The deepest valid line nests four containers (line, output, casMismatch, version); the bound
   * only caps the work a hostile line can cause before the format checks refuse it.
   */
  private static final int NESTING_DEPTH_MAX = 16;

  static final JsonMapper MAPPER =
      JsonMapper.builder(factory())
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .build();

  private static JsonFactory factory() {
    JsonFactory factory =
        JsonFactory.builder()
            .streamReadConstraints(
                StreamReadConstraints.builder()
                    .maxNestingDepth(NESTING_DEPTH_MAX)
                    // Values are as long as the store allows: the format sets no limit.
                    .maxStringLength(Integer.MAX_VALUE)
                    .build())
            .build();
    // U+2028 and U+2029 end a line for some line readers (Python's splitlines, older JavaScript):
    // written escaped, a line stays one line everywhere.
    factory.setCharacterEscapes(JsonpCharacterEscapes.instance());
    return factory;
  }

  private HistoryJson() {}

  /** Jackson's complaint without its source excerpt, and where on the line it stopped. */
  static String describe(JsonProcessingException e) {
    String problem = String.valueOf(e.getOriginalMessage()).lines().findFirst().orElse("");
    JsonLocation at = e.getLocation();
    return at == null || at.getColumnNr() < 1
        ? problem
        : problem + " at character " + at.getColumnNr();
  }
}
