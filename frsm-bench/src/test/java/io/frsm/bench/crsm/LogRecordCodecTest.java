package io.frsm.bench.crsm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.frsm.api.Version;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class LogRecordCodecTest {
  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  @Test
  void everyCommandType_roundTrips() {
    List<ClientCommand> batch =
        List.of(
            new ClientCommand(0, 1, new Command.Get(b("g"))),
            new ClientCommand(1, 2, new Command.Create(b("c"), b("value"))),
            new ClientCommand(2, 3, new Command.Cas(b("k"), new Version(5, 6), b("new"))),
            new ClientCommand(0, 4, new Command.Delete(b("d"), new Version(7, 8))),
            new ClientCommand(1, Long.MAX_VALUE, new Command.Fence(b("f"))));
    List<ClientCommand> decoded = LogRecordCodec.decodeBatch(LogRecordCodec.encodeBatch(batch));
    assertEquals(batch.size(), decoded.size());
    for (int i = 0; i < batch.size(); i++) {
      assertEquals(describe(batch.get(i)), describe(decoded.get(i)));
    }
  }

  @Test
  void emptyBatch_isANoOpOfFourBytes() {
    byte[] bytes = LogRecordCodec.encodeBatch(List.of());
    assertArrayEquals(new byte[] {0, 0, 0, 0}, bytes);
    assertEquals(List.of(), LogRecordCodec.decodeBatch(bytes));
  }

  @Test
  void truncatedBatch_isRejected() {
    byte[] bytes =
        LogRecordCodec.encodeBatch(List.of(new ClientCommand(0, 1, new Command.Get(b("key")))));
    assertThrows(
        IllegalArgumentException.class,
        () -> LogRecordCodec.decodeBatch(Arrays.copyOf(bytes, bytes.length - 1)));
  }

  @Test
  void slotKeys_differPerShardAndSlot() {
    assertEquals(13, LogRecordCodec.slotKey(0, 0).length);
    assertEquals(false, Arrays.equals(LogRecordCodec.slotKey(0, 1), LogRecordCodec.slotKey(1, 1)));
    assertEquals(false, Arrays.equals(LogRecordCodec.slotKey(0, 1), LogRecordCodec.slotKey(0, 2)));
  }

  private static String describe(ClientCommand c) {
    Command m = c.command();
    String extra = "";
    if (m instanceof Command.Create x) {
      extra = new String(x.value(), StandardCharsets.US_ASCII);
    } else if (m instanceof Command.Cas x) {
      extra = x.expected() + new String(x.value(), StandardCharsets.US_ASCII);
    } else if (m instanceof Command.Delete x) {
      extra = x.expected().toString();
    }
    return c.origin()
        + "/"
        + c.requestId()
        + "/"
        + m.getClass().getSimpleName()
        + "/"
        + new String(m.key(), StandardCharsets.US_ASCII)
        + "/"
        + extra;
  }
}
