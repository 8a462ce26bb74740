package io.frsm.testkit.history;

import io.frsm.api.Version;
import java.io.IOException;
import java.io.Writer;
import java.util.List;

/**
 * Writes histories as JSON lines, one operation per line; the format is specified in
 * docs/formats/history.md and read back by {@link HistoryJsonReader}.
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
    StringBuilder s = new StringBuilder(128);
    s.append("{\"client\":").append(op.client());
    s.append(",\"op\":\"").append(op.kind().jsonName()).append('"');
    s.append(",\"key\":");
    appendBytes(s, op.key());
    s.append(",\"input\":{");
    boolean first = true;
    if (op.input().expected().isPresent()) {
      s.append("\"expected\":");
      appendVersion(s, op.input().expected().get());
      first = false;
    }
    if (op.input().value().isPresent()) {
      s.append(first ? "" : ",").append("\"value\":");
      appendBytes(s, op.input().value().get());
    }
    s.append("},\"output\":");
    appendOutput(s, op.output());
    s.append(",\"call\":").append(op.callNanos());
    s.append(",\"return\":").append(op.returnNanos());
    return s.append('}').toString();
  }

  private static void appendOutput(StringBuilder s, Output output) {
    if (output instanceof Output.Found f) {
      s.append("{\"ok\":true,");
      appendVersionedFields(s, f.current());
      s.append('}');
    } else if (output instanceof Output.Absent) {
      s.append("{\"ok\":true,\"absent\":true}");
    } else if (output instanceof Output.Written w) {
      s.append("{\"ok\":true,\"version\":");
      appendVersion(s, w.version());
      s.append('}');
    } else if (output instanceof Output.Deleted) {
      s.append("{\"ok\":true}");
    } else if (output instanceof Output.KeyExists k) {
      s.append("{\"ok\":false,\"keyExists\":{");
      appendVersionedFields(s, k.current());
      s.append("}}");
    } else if (output instanceof Output.CasMismatch c) {
      s.append("{\"ok\":false,\"casMismatch\":{");
      if (c.current().isPresent()) {
        appendVersionedFields(s, c.current().get());
      } else {
        s.append("\"absent\":true");
      }
      s.append("}}");
    } else if (output instanceof Output.Unknown) {
      s.append("\"unknown\"");
    } else {
      assert output instanceof Output.NotExecuted;
      s.append("\"notExecuted\"");
    }
  }

  private static void appendVersionedFields(StringBuilder s, VersionedValue current) {
    s.append("\"value\":");
    appendBytes(s, current.value());
    s.append(",\"version\":");
    appendVersion(s, current.version());
  }

  private static void appendVersion(StringBuilder s, Version version) {
    s.append('[').append(version.epoch()).append(',').append(version.timestamp()).append(']');
  }

  /** Printable UTF-8 as a JSON string; anything else as {"base64":"..."}. */
  private static void appendBytes(StringBuilder s, Bytes bytes) {
    String text = bytes.asPrintableText().orElse(null);
    if (text == null) {
      s.append("{\"base64\":\"").append(bytes.toBase64()).append("\"}");
    } else {
      appendString(s, text);
    }
  }

  /** A JSON string literal. Printable text has no control characters, but escape them anyway. */
  static void appendString(StringBuilder s, String text) {
    s.append('"');
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '"' -> s.append("\\\"");
        case '\\' -> s.append("\\\\");
        case '\n' -> s.append("\\n");
        case '\r' -> s.append("\\r");
        case '\t' -> s.append("\\t");
        case '\b' -> s.append("\\b");
        case '\f' -> s.append("\\f");
        default -> {
          if (c < 0x20 || c == 0x2028 || c == 0x2029) {
            s.append(String.format("\\u%04x", (int) c));
          } else {
            s.append(c);
          }
        }
      }
    }
    s.append('"');
  }
}
