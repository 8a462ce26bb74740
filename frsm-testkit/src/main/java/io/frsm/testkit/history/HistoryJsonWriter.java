package io.frsm.testkit.history;

import com.fasterxml.jackson.core.JsonGenerator;
import io.frsm.api.Version;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.util.List;

/**
 * Writes histories as JSON lines, one operation per line; the format is specified in
 * docs/formats/history.md and read back by {@link HistoryJsonReader}. Members are written in the
 * documented order, without white space.
 */
public final class HistoryJsonWriter {
  private HistoryJsonWriter() {}

  /** Writes every operation as one line ending in {@code \n}. The caller encodes as UTF-8. */
  public static void write(List<Operation> history, Writer out) throws IOException {
    for (Operation op : history) {
      out.write(toLine(op));
      out.write('\n');
    }
  }

  /** One operation as a JSON object on a single line, without the line end. */
  public static String toLine(Operation op) {
    StringWriter line = new StringWriter(128);
    try (JsonGenerator json = HistoryJson.MAPPER.createGenerator(line)) {
      writeOperation(json, op);
    } catch (IOException e) {
      throw new UncheckedIOException("a StringWriter does not fail", e);
    }
    return line.toString();
  }

  private static void writeOperation(JsonGenerator json, Operation op) throws IOException {
    json.writeStartObject();
    json.writeNumberField("client", op.client());
    json.writeStringField("op", op.kind().jsonName());
    json.writeFieldName("key");
    writeBytes(json, op.key());
    json.writeObjectFieldStart("input");
    if (op.input().expected().isPresent()) {
      json.writeFieldName("expected");
      writeVersion(json, op.input().expected().get());
    }
    if (op.input().value().isPresent()) {
      json.writeFieldName("value");
      writeBytes(json, op.input().value().get());
    }
    json.writeEndObject();
    json.writeFieldName("output");
    writeOutput(json, op.output());
    json.writeNumberField("call", op.callNanos());
    json.writeNumberField("return", op.returnNanos());
    json.writeEndObject();
  }

  private static void writeOutput(JsonGenerator json, Output output) throws IOException {
    if (output instanceof Output.Unknown) {
      json.writeString("unknown");
      return;
    }
    if (output instanceof Output.NotExecuted) {
      json.writeString("notExecuted");
      return;
    }
    json.writeStartObject();
    if (output instanceof Output.Found f) {
      json.writeBooleanField("ok", true);
      writeVersionedFields(json, f.current());
    } else if (output instanceof Output.Absent) {
      json.writeBooleanField("ok", true);
      json.writeBooleanField("absent", true);
    } else if (output instanceof Output.Written w) {
      json.writeBooleanField("ok", true);
      json.writeFieldName("version");
      writeVersion(json, w.version());
    } else if (output instanceof Output.Deleted) {
      json.writeBooleanField("ok", true);
    } else if (output instanceof Output.KeyExists k) {
      json.writeBooleanField("ok", false);
      json.writeObjectFieldStart("keyExists");
      writeVersionedFields(json, k.current());
      json.writeEndObject();
    } else {
      Output.CasMismatch c = (Output.CasMismatch) output; // Output is sealed: the last one left
      json.writeBooleanField("ok", false);
      json.writeObjectFieldStart("casMismatch");
      if (c.current().isPresent()) {
        writeVersionedFields(json, c.current().get());
      } else {
        json.writeBooleanField("absent", true);
      }
      json.writeEndObject();
    }
    json.writeEndObject();
  }

  private static void writeVersionedFields(JsonGenerator json, VersionedValue current)
      throws IOException {
    json.writeFieldName("value");
    writeBytes(json, current.value());
    json.writeFieldName("version");
    writeVersion(json, current.version());
  }

  private static void writeVersion(JsonGenerator json, Version version) throws IOException {
    json.writeStartArray();
    json.writeNumber(version.epoch());
    json.writeNumber(version.timestamp());
    json.writeEndArray();
  }

  /**
   * Printable UTF-8 as a JSON string; anything else as {"base64":"..."}. Printable text holds no
   * control character, so the generator escapes only {@code "} and {@code \}.
   */
  private static void writeBytes(JsonGenerator json, Bytes bytes) throws IOException {
    String text = bytes.asPrintableText().orElse(null);
    if (text == null) {
      json.writeStartObject();
      json.writeStringField("base64", bytes.toBase64());
      json.writeEndObject();
    } else {
      json.writeString(text);
    }
  }
}
