package io.frsm.testkit.history;

import io.frsm.api.Version;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Reads histories written by {@link HistoryJsonWriter} (docs/formats/history.md). Strict: unknown
 * members, missing members, wrong types, empty lines and outputs an operation cannot have are all
 * rejected with a {@link HistoryFormatException} naming the line.
 */
public final class HistoryJsonReader {
  private static final Set<String> LINE_MEMBERS =
      Set.of("client", "op", "key", "input", "output", "call", "return");
  private static final Set<String> VERSIONED_MEMBERS = Set.of("value", "version");

  private HistoryJsonReader() {}

  /** Reads every line up to the end. The caller decodes the stream as UTF-8. */
  public static List<Operation> read(BufferedReader in) throws IOException {
    List<Operation> history = new ArrayList<>();
    int lineNumber = 0;
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      history.add(parseLine(line, ++lineNumber));
    }
    return history;
  }

  /** Parses one line; {@code lineNumber} (1-based) is only used in error messages. */
  public static Operation parseLine(String line, int lineNumber) throws HistoryFormatException {
    if (line.isBlank()) {
      throw new HistoryFormatException(lineNumber, "empty line; every line must be an operation");
    }
    Object json;
    try {
      json = JsonLineParser.parse(line);
    } catch (JsonLineParser.SyntaxException e) {
      throw new HistoryFormatException(lineNumber, "malformed JSON: " + e.getMessage());
    }
    try {
      return operation(json);
    } catch (IllegalArgumentException e) {
      throw new HistoryFormatException(lineNumber, e.getMessage());
    }
  }

  private static Operation operation(Object json) {
    Map<String, Object> line = object(json, "the line", LINE_MEMBERS, LINE_MEMBERS);
    OperationKind kind = OperationKind.fromJsonName(string(line.get("op"), "op"));
    return new Operation(
        integer(line.get("client"), "client"),
        kind,
        bytes(line.get("key"), "key"),
        input(line.get("input")),
        output(line.get("output")),
        integer(line.get("call"), "call"),
        integer(line.get("return"), "return"));
  }

  private static Input input(Object json) {
    Map<String, Object> input = object(json, "input", Set.of(), Set.of("expected", "value"));
    return new Input(
        input.containsKey("expected")
            ? Optional.of(version(input.get("expected"), "input.expected"))
            : Optional.empty(),
        input.containsKey("value")
            ? Optional.of(bytes(input.get("value"), "input.value"))
            : Optional.empty());
  }

  private static Output output(Object json) {
    if (json instanceof String s) {
      switch (s) {
        case "unknown":
          return Output.UNKNOWN;
        case "notExecuted":
          return Output.NOT_EXECUTED;
        default:
          throw new IllegalArgumentException(
              "output string must be \"unknown\" or \"notExecuted\", was \"" + s + "\"");
      }
    }
    Map<String, Object> output =
        object(
            json,
            "output",
            Set.of("ok"),
            Set.of("ok", "absent", "value", "version", "keyExists", "casMismatch"));
    boolean ok = bool(output.get("ok"), "output.ok");
    if (ok) {
      if (output.containsKey("keyExists") || output.containsKey("casMismatch")) {
        throw new IllegalArgumentException("a successful output has no keyExists or casMismatch");
      }
      if (output.containsKey("absent")) {
        requireTrue(output.get("absent"), "output.absent");
        if (output.size() != 2) {
          throw new IllegalArgumentException("an absent output has only ok and absent");
        }
        return Output.ABSENT;
      }
      if (output.containsKey("value")) {
        return new Output.Found(versioned(output, "output"));
      }
      if (output.containsKey("version")) {
        return new Output.Written(version(output.get("version"), "output.version"));
      }
      return Output.DELETED;
    }
    if (output.size() != 2) {
      throw new IllegalArgumentException(
          "a failed output has ok:false and exactly one of keyExists or casMismatch");
    }
    if (output.containsKey("keyExists")) {
      Map<String, Object> current =
          object(output.get("keyExists"), "keyExists", VERSIONED_MEMBERS, VERSIONED_MEMBERS);
      return new Output.KeyExists(versioned(current, "keyExists"));
    }
    if (output.containsKey("casMismatch")) {
      Map<String, Object> current =
          object(
              output.get("casMismatch"),
              "casMismatch",
              Set.of(),
              Set.of("absent", "value", "version"));
      if (current.containsKey("absent")) {
        requireTrue(current.get("absent"), "casMismatch.absent");
        if (current.size() != 1) {
          throw new IllegalArgumentException("casMismatch has either absent or value and version");
        }
        return new Output.CasMismatch(Optional.empty());
      }
      return new Output.CasMismatch(Optional.of(versioned(current, "casMismatch")));
    }
    throw new IllegalArgumentException(
        "a failed output has ok:false and exactly one of keyExists or casMismatch");
  }

  private static VersionedValue versioned(Map<String, Object> members, String where) {
    if (!members.containsKey("value") || !members.containsKey("version")) {
      throw new IllegalArgumentException(where + " needs both value and version");
    }
    return new VersionedValue(
        bytes(members.get("value"), where + ".value"),
        version(members.get("version"), where + ".version"));
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> object(
      Object json, String where, Set<String> required, Set<String> allowed) {
    if (!(json instanceof Map)) {
      throw new IllegalArgumentException(where + " must be an object");
    }
    Map<String, Object> members = (Map<String, Object>) json;
    for (String name : members.keySet()) {
      if (!allowed.contains(name)) {
        throw new IllegalArgumentException(where + " has unknown member \"" + name + "\"");
      }
    }
    for (String name : required) {
      if (!members.containsKey(name)) {
        throw new IllegalArgumentException(where + " lacks member \"" + name + "\"");
      }
    }
    return members;
  }

  private static Version version(Object json, String where) {
    if (!(json instanceof List<?> pair) || pair.size() != 2) {
      throw new IllegalArgumentException(where + " must be [epoch, timestamp]");
    }
    return new Version(integer(pair.get(0), where + "[0]"), integer(pair.get(1), where + "[1]"));
  }

  /** A JSON string is UTF-8 text; {"base64": "..."} is any bytes. */
  private static Bytes bytes(Object json, String where) {
    if (json instanceof String text) {
      try {
        ByteBuffer encoded =
            StandardCharsets.UTF_8
                .newEncoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)
                .encode(CharBuffer.wrap(text));
        byte[] utf8 = new byte[encoded.remaining()];
        encoded.get(utf8);
        return Bytes.of(utf8);
      } catch (CharacterCodingException e) {
        throw new IllegalArgumentException(where + " is not valid Unicode (lone surrogate)");
      }
    }
    Map<String, Object> encoded = object(json, where, Set.of("base64"), Set.of("base64"));
    String base64 = string(encoded.get("base64"), where + ".base64");
    try {
      return Bytes.of(Base64.getDecoder().decode(base64));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(where + ".base64 is not valid base64: " + e.getMessage());
    }
  }

  private static long integer(Object json, String where) {
    if (!(json instanceof Long value)) {
      throw new IllegalArgumentException(where + " must be an integer");
    }
    return value;
  }

  private static String string(Object json, String where) {
    if (!(json instanceof String value)) {
      throw new IllegalArgumentException(where + " must be a string");
    }
    return value;
  }

  private static boolean bool(Object json, String where) {
    if (!(json instanceof Boolean value)) {
      throw new IllegalArgumentException(where + " must be true or false");
    }
    return value;
  }

  private static void requireTrue(Object json, String where) {
    if (!Boolean.TRUE.equals(json)) {
      throw new IllegalArgumentException(where + " must be true");
    }
  }
}
