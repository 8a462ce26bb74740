package io.frsm.client.transport;

import com.google.protobuf.CodedInputStream;
import java.io.IOException;

/**
 * A {@code Version} message's fields (client.proto) as the direct readers read them, request and
 * response alike: epoch and timestamp overwritten by a repeat, messages merged, unknown fields
 * skipped; {@code set} once the message appeared.
 */
final class VersionFields {
  private static final int VARINT = 0;

  boolean set;
  long epoch;
  long timestamp;

  /** Reads the message whose tag was just read, {@code depth} levels below the envelope. */
  void read(CodedInputStream in, int depth) throws IOException {
    set = true;
    int limit = in.pushLimit(in.readRawVarint32());
    while (true) {
      int tag = in.readTag();
      if (tag == 0) {
        break;
      }
      switch (tag) {
        case 1 << 3 | VARINT -> epoch = in.readUInt64();
        case 2 << 3 | VARINT -> timestamp = in.readUInt64();
        default -> UnknownFields.skip(in, tag, depth);
      }
    }
    in.checkLastTagWas(0);
    in.popLimit(limit);
  }
}
