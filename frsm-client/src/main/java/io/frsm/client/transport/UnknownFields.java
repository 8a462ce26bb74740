package io.frsm.client.transport;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.WireFormat;
import java.io.IOException;

/**
 * Skips a field a direct reader does not keep (an unknown number, or a known number with another
 * wire type) as the generated parser passes over it, refusing exactly what it refuses.
 *
 * <p>The direct readers read a nested message from a stream of its own, where protobuf's stream had
 * counted the enclosing messages towards its recursion limit; an unknown group is therefore skipped
 * here with that depth made explicit, as protobuf's {@code UnknownFieldSet} reads one ({@code
 * readGroup}: the limit checked at each group's start against the messages and groups around it).
 * Every other wire type is skipped by {@link CodedInputStream#skipField}, which reads what the
 * unknown-field set reads and refuses what it refuses (an end-group tag outside a group, wire types
 * 6 and 7, a cut varint or length).
 *
 * <p>Internal: wire helpers shared with the node's peer codec (frsm-transport's direct peer
 * readers); not part of the client API.
 */
public final class UnknownFields {
  /** protobuf's default recursion limit ({@code CodedInputStream.setRecursionLimit}). */
  static final int RECURSION_LIMIT = 100;

  private UnknownFields() {}

  /**
   * Skips the field whose tag was just read, inside a message {@code messageDepth} levels below the
   * envelope (the envelope's own fields are at 0).
   *
   * @param in the stream the tag was read from
   * @param tag the field's tag, just read
   * @param messageDepth how many messages enclose the field's, as protobuf's parser counts them
   * @return false for an end-group tag, as {@link CodedInputStream#skipField} (protobuf-java
   *     refuses one outside a group already); true otherwise
   * @throws IOException if the field does not parse (protobuf's own exceptions)
   */
  public static boolean skip(CodedInputStream in, int tag, int messageDepth) throws IOException {
    if (WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_START_GROUP) {
      skipGroup(in, tag, messageDepth, 0);
      return true;
    }
    return in.skipField(tag);
  }

  private static void skipGroup(CodedInputStream in, int startTag, int messageDepth, int groups)
      throws IOException {
    if (messageDepth + groups >= RECURSION_LIMIT) {
      throw new InvalidProtocolBufferException(
          "Protocol message had too many levels of nesting.  May be malicious.  Use"
              + " setRecursionLimit() to increase the recursion depth limit."); // protobuf's text
    }
    while (true) {
      int tag = in.readTag();
      if (tag == 0) {
        break;
      }
      int wireType = WireFormat.getTagWireType(tag);
      if (wireType == WireFormat.WIRETYPE_START_GROUP) {
        skipGroup(in, tag, messageDepth, groups + 1);
      } else if (wireType == WireFormat.WIRETYPE_END_GROUP) {
        break;
      } else {
        in.skipField(tag);
      }
    }
    in.checkLastTagWas(WireFormat.getTagFieldNumber(startTag) << 3 | WireFormat.WIRETYPE_END_GROUP);
  }
}
