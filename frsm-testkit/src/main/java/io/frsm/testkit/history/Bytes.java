package io.frsm.testkit.history;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.Optional;

/** An immutable byte string (a key or a value in a history), compared by content. */
public final class Bytes {
  private static final int SHOWN_CHARS_MAX = 40;

  private final byte[] bytes;

  private Bytes(byte[] bytes) {
    this.bytes = bytes;
  }

  /** Copies {@code bytes}. */
  public static Bytes of(byte[] bytes) {
    return new Bytes(bytes.clone());
  }

  /** The UTF-8 encoding of {@code text}. */
  public static Bytes utf8(String text) {
    return new Bytes(text.getBytes(StandardCharsets.UTF_8));
  }

  public byte[] toByteArray() {
    return bytes.clone();
  }

  public int length() {
    return bytes.length;
  }

  /**
   * The bytes as text if they are well-formed UTF-8 without control characters (C0, DEL, C1), else
   * empty. This is the rule that decides between the string and the base64 form in the JSON-lines
   * history format (docs/formats/history.md).
   */
  public Optional<String> asPrintableText() {
    String text;
    try {
      text =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(bytes))
              .toString();
    } catch (CharacterCodingException e) {
      return Optional.empty();
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) {
        return Optional.empty();
      }
    }
    return Optional.of(text);
  }

  public String toBase64() {
    return Base64.getEncoder().encodeToString(bytes);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Bytes other && Arrays.equals(bytes, other.bytes);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(bytes);
  }

  /** Quoted text when printable, else {@code base64:...}; long contents are shortened. */
  @Override
  public String toString() {
    String shown =
        asPrintableText().map(t -> '"' + t + '"').orElseGet(() -> "base64:" + toBase64());
    return shown.length() <= SHOWN_CHARS_MAX
        ? shown
        : shown.substring(0, SHOWN_CHARS_MAX) + "…(" + bytes.length + " bytes)";
  }
}
