package io.frsm.testkit.history;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small strict JSON parser for one history line (RFC 8259, with numbers limited to integers that
 * fit a long: the format has no others). Objects become {@code Map<String, Object>} (duplicate
 * names rejected), arrays {@code List<Object>}, strings {@code String}, numbers {@code Long},
 * {@code true}/{@code false} {@code Boolean}, and {@code null} Java null.
 */
final class JsonLineParser {
  /** Thrown for malformed JSON; the message says what and at which character. */
  static final class SyntaxException extends Exception {
    SyntaxException(String message) {
      super(message);
    }
  }

  private static final int DEPTH_MAX = 16;

  private final String text;
  private int pos;

  private JsonLineParser(String text) {
    this.text = text;
  }

  static Object parse(String text) throws SyntaxException {
    JsonLineParser parser = new JsonLineParser(text);
    Object value = parser.value(0);
    parser.skipWhitespace();
    if (parser.pos != text.length()) {
      throw parser.error("unexpected text after the JSON value");
    }
    return value;
  }

  private Object value(int depth) throws SyntaxException {
    if (depth > DEPTH_MAX) {
      throw error("nested deeper than " + DEPTH_MAX);
    }
    skipWhitespace();
    if (pos >= text.length()) {
      throw error("unexpected end of line");
    }
    char c = text.charAt(pos);
    switch (c) {
      case '{':
        return object(depth);
      case '[':
        return array(depth);
      case '"':
        return string();
      case 't':
        literal("true");
        return Boolean.TRUE;
      case 'f':
        literal("false");
        return Boolean.FALSE;
      case 'n':
        literal("null");
        return null;
      default:
        if (c == '-' || (c >= '0' && c <= '9')) {
          return number();
        }
        throw error("unexpected character '" + c + "'");
    }
  }

  private Map<String, Object> object(int depth) throws SyntaxException {
    expect('{');
    Map<String, Object> members = new LinkedHashMap<>();
    skipWhitespace();
    if (peek() == '}') {
      pos++;
      return members;
    }
    while (true) {
      skipWhitespace();
      if (peek() != '"') {
        throw error("expected a member name");
      }
      int namePos = pos;
      String name = string();
      skipWhitespace();
      expect(':');
      Object member = value(depth + 1);
      if (members.containsKey(name)) {
        pos = namePos;
        throw error("duplicate member \"" + name + "\"");
      }
      members.put(name, member);
      skipWhitespace();
      char c = peek();
      pos++;
      if (c == '}') {
        return members;
      }
      if (c != ',') {
        pos--;
        throw error("expected ',' or '}'");
      }
    }
  }

  private List<Object> array(int depth) throws SyntaxException {
    expect('[');
    List<Object> elements = new ArrayList<>();
    skipWhitespace();
    if (peek() == ']') {
      pos++;
      return elements;
    }
    while (true) {
      elements.add(value(depth + 1));
      skipWhitespace();
      char c = peek();
      pos++;
      if (c == ']') {
        return elements;
      }
      if (c != ',') {
        pos--;
        throw error("expected ',' or ']'");
      }
    }
  }

  private String string() throws SyntaxException {
    expect('"');
    StringBuilder s = new StringBuilder();
    while (true) {
      if (pos >= text.length()) {
        throw error("unterminated string");
      }
      char c = text.charAt(pos++);
      if (c == '"') {
        return s.toString();
      }
      if (c < 0x20) {
        pos--;
        throw error("unescaped control character in string");
      }
      if (c != '\\') {
        s.append(c);
        continue;
      }
      if (pos >= text.length()) {
        throw error("unterminated escape");
      }
      char escaped = text.charAt(pos++);
      switch (escaped) {
        case '"' -> s.append('"');
        case '\\' -> s.append('\\');
        case '/' -> s.append('/');
        case 'b' -> s.append('\b');
        case 'f' -> s.append('\f');
        case 'n' -> s.append('\n');
        case 'r' -> s.append('\r');
        case 't' -> s.append('\t');
        case 'u' -> s.append(hexChar());
        default -> {
          pos--;
          throw error("invalid escape '\\" + escaped + "'");
        }
      }
    }
  }

  private char hexChar() throws SyntaxException {
    if (pos + 4 > text.length()) {
      throw error("truncated \\u escape");
    }
    int code = 0;
    for (int i = 0; i < 4; i++) {
      int digit = Character.digit(text.charAt(pos + i), 16);
      if (digit < 0) {
        throw error("invalid hex digit in \\u escape");
      }
      code = code * 16 + digit;
    }
    pos += 4;
    return (char) code;
  }

  private Long number() throws SyntaxException {
    int start = pos;
    if (peek() == '-') {
      pos++;
    }
    int digitsStart = pos;
    while (pos < text.length() && Character.isDigit(text.charAt(pos))) {
      pos++;
    }
    if (pos == digitsStart) {
      throw error("expected digits");
    }
    if (text.charAt(digitsStart) == '0' && pos - digitsStart > 1) {
      pos = digitsStart;
      throw error("leading zero in number");
    }
    if (pos < text.length() && ".eE".indexOf(text.charAt(pos)) >= 0) {
      throw error("only integers are allowed in a history");
    }
    try {
      return Long.parseLong(text.substring(start, pos));
    } catch (NumberFormatException e) {
      pos = start;
      throw error("number out of range for a 64-bit integer");
    }
  }

  private void literal(String word) throws SyntaxException {
    if (!text.startsWith(word, pos)) {
      throw error("unexpected token");
    }
    pos += word.length();
  }

  private void expect(char c) throws SyntaxException {
    if (peek() != c) {
      throw error("expected '" + c + "'");
    }
    pos++;
  }

  /** The current character, or 0 at the end of the line. */
  private char peek() {
    return pos < text.length() ? text.charAt(pos) : 0;
  }

  private void skipWhitespace() {
    while (pos < text.length() && " \t\r\n".indexOf(text.charAt(pos)) >= 0) {
      pos++;
    }
  }

  private SyntaxException error(String problem) {
    return new SyntaxException(problem + " at character " + (pos + 1));
  }
}
