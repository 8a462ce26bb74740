package io.frsm.transport.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.CodedInputStream;
import io.frsm.client.transport.WireDecodeException;
import io.frsm.transport.proto.CloseStream;
import io.frsm.transport.proto.StreamEnvelope;
import org.junit.jupiter.api.Test;

/** Stream envelopes are checked before any side sees them: version, cluster, sender, a body. */
class StreamFramingTest {
  private final StreamFraming framing = new StreamFraming("c1");

  private StreamFrame read(byte[] bytes) throws WireDecodeException {
    return framing.read(CodedInputStream.newInstance(bytes));
  }

  private static StreamEnvelope.Builder valid() {
    return StreamWire.envelope("c1", 4).setClose(CloseStream.newBuilder().setDiscard(true));
  }

  @Test
  void validEnvelope_isItsSenderAndBody() throws Exception {
    StreamFrame f = read(valid().build().toByteArray());
    assertEquals(4, f.senderNodeId());
    assertTrue(f.envelope().getClose().getDiscard());
  }

  @Test
  void forgedEnvelopes_areRefusedWithTheReason() {
    assertRefused(valid().setProtocolVersion(2).build().toByteArray(), "protocol version 2");
    assertRefused(valid().setClusterId("other").build().toByteArray(), "cluster id 'other'");
    assertRefused(valid().setSenderNodeId(-1).build().toByteArray(), "sender node id 4294967295");
    assertRefused(valid().clearBody().build().toByteArray(), "without a body");
    assertRefused(new byte[] {(byte) 0xFF, (byte) 0xFF, 0x01}, "does not parse");
    byte[] whole = valid().build().toByteArray();
    byte[] truncated = java.util.Arrays.copyOf(whole, whole.length - 2);
    assertRefused(truncated, "");
  }

  private void assertRefused(byte[] bytes, String reason) {
    WireDecodeException e = assertThrows(WireDecodeException.class, () -> read(bytes));
    assertTrue(e.getMessage().contains(reason), e.getMessage());
  }
}
