package io.frsm.testkit.history;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
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
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Reads histories written by {@link HistoryJsonWriter} (docs/formats/history.md). Strict: malformed
 * JSON, unknown members, missing members, wrong types, empty lines and outputs an operation cannot
 * have are all rejected with a {@link HistoryFormatException} naming the line; no other exception
 * escapes for bad input.
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
    JsonNode json;
    try {
      // Null (no content) cannot come from a non-blank line, but a missing node is refused alike.
      json =
          Objects.requireNonNullElse(HistoryJson.MAPPER.readTree(line), MissingNode.getInstance());
    } catch (JsonProcessingException e) {
      throw new HistoryFormatException(lineNumber, "malformed JSON: " + HistoryJson.describe(e));
    }
    try {
      return operation(json);
    } catch (IllegalArgumentException e) {
      throw new HistoryFormatException(lineNumber, e.getMessage());
    }
  }

  private static Operation operation(JsonNode json) {
    JsonNode line = object(json, "the line", LINE_MEMBERS, LINE_MEMBERS);
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

  private static Input input(JsonNode json) {
    JsonNode input = object(json, "input", Set.of(), Set.of("expected", "value"));
    return new Input(
        input.has("expected")
            ? Optional.of(version(input.get("expected"), "input.expected"))
            : Optional.empty(),
        input.has("value")
            ? Optional.of(bytes(input.get("value"), "input.value"))
            : Optional.empty());
  }

  private static Output output(JsonNode json) {
    if (json.isTextual()) {
      String s = json.textValue();
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
    JsonNode output =
        object(
            json,
            "output",
            Set.of("ok"),
            Set.of("ok", "absent", "value", "version", "keyExists", "casMismatch"));
    boolean ok = bool(output.get("ok"), "output.ok");
    if (ok) {
      if (output.has("keyExists") || output.has("casMismatch")) {
        throw new IllegalArgumentException("a successful output has no keyExists or casMismatch");
      }
      if (output.has("absent")) {
        requireTrue(output.get("absent"), "output.absent");
        if (output.size() != 2) {
          throw new IllegalArgumentException("an absent output has only ok and absent");
        }
        return Output.ABSENT;
      }
      if (output.has("value")) {
        return new Output.Found(versioned(output, "output"));
      }
      if (output.has("version")) {
        return new Output.Written(version(output.get("version"), "output.version"));
      }
      return Output.DELETED;
    }
    if (output.size() != 2) {
      throw new IllegalArgumentException(
          "a failed output has ok:false and exactly one of keyExists or casMismatch");
    }
    if (output.has("keyExists")) {
      JsonNode current =
          object(output.get("keyExists"), "keyExists", VERSIONED_MEMBERS, VERSIONED_MEMBERS);
      return new Output.KeyExists(versioned(current, "keyExists"));
    }
    if (output.has("casMismatch")) {
      JsonNode current =
          object(
              output.get("casMismatch"),
              "casMismatch",
              Set.of(),
              Set.of("absent", "value", "version"));
      if (current.has("absent")) {
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

  private static VersionedValue versioned(JsonNode members, String where) {
    if (!members.has("value") || !members.has("version")) {
      throw new IllegalArgumentException(where + " needs both value and version");
    }
    return new VersionedValue(
        bytes(members.get("value"), where + ".value"),
        version(members.get("version"), where + ".version"));
  }

  /**
   * REQUIRES: {@code json} is a member's value (never Java null: members are looked up only after
   * this check of their parent, or are required by it).
   */
  private static JsonNode object(
      JsonNode json, String where, Set<String> required, Set<String> allowed) {
    if (!json.isObject()) {
      throw new IllegalArgumentException(where + " must be an object");
    }
    for (Map.Entry<String, JsonNode> member : json.properties()) {
      if (!allowed.contains(member.getKey())) {
        throw new IllegalArgumentException(
            where + " has unknown member \"" + member.getKey() + "\"");
      }
    }
    for (String name : required) {
      if (!json.has(name)) {
        throw new IllegalArgumentException(where + " lacks member \"" + name + "\"");
      }
    }
    return json;
  }

  private static Version version(JsonNode json, String where) {
    if (!json.isArray() || json.size() != 2) {
      throw new IllegalArgumentException(where + " must be [epoch, timestamp]");
    }
    return new Version(integer(json.get(0), where + "[0]"), integer(json.get(1), where + "[1]"));
  }

  /** A JSON string is UTF-8 text; {"base64": "..."} is any bytes. */
  private static Bytes bytes(JsonNode json, String where) {
    if (json.isTextual()) {
      try {
        ByteBuffer encoded =
            StandardCharsets.UTF_8
                .newEncoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)
                .encode(CharBuffer.wrap(json.textValue()));
        byte[] utf8 = new byte[encoded.remaining()];
        encoded.get(utf8);
        return Bytes.of(utf8);
      } catch (CharacterCodingException e) {
        throw new IllegalArgumentException(where + " is not valid Unicode (lone surrogate)");
      }
    }
    JsonNode encoded = object(json, where, Set.of("base64"), Set.of("base64"));
    String base64 = string(encoded.get("base64"), where + ".base64");
    try {
      return Bytes.of(Base64.getDecoder().decode(base64));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(where + ".base64 is not valid base64: " + e.getMessage());
    }
  }

  /** Integers only: the format has no fractions or exponents, and every number fits a long. */
  private static long integer(JsonNode json, String where) {
    if (!json.isIntegralNumber()) {
      throw new IllegalArgumentException(where + " must be an integer");
    }
    if (!json.canConvertToLong()) {
      throw new IllegalArgumentException(where + " is out of range for a 64-bit integer");
    }
    return json.longValue();
  }

  private static String string(JsonNode json, String where) {
    if (!json.isTextual()) {
      throw new IllegalArgumentException(where + " must be a string");
    }
    return json.textValue();
  }

  private static boolean bool(JsonNode json, String where) {
    if (!json.isBoolean()) {
      throw new IllegalArgumentException(where + " must be true or false");
    }
    return json.booleanValue();
  }

  private static void requireTrue(JsonNode json, String where) {
    if (!json.isBoolean() || !json.booleanValue()) {
      throw new IllegalArgumentException(where + " must be true");
    }
  }
}
