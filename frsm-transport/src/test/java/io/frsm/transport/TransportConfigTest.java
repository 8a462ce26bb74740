package io.frsm.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.client.transport.TransportConfig;
import io.frsm.client.transport.WireFormat;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class TransportConfigTest {
  @Test
  void defaults_areTheDocumentedOnes() {
    TransportConfig c = TransportConfig.builder("c").build();
    assertEquals(WireFormat.DEFAULT_MAX_FRAME_BYTES, c.maxFrameBytes());
    assertEquals(16_384, c.maxQueuedFramesPerConnection());
    assertEquals(1 << 20, c.writeBufferLowWaterMarkBytes());
    assertEquals(4 << 20, c.writeBufferHighWaterMarkBytes());
    assertEquals(Duration.ofSeconds(2), c.connectTimeout());
    assertEquals(Duration.ofMillis(20), c.reconnectBackoffMin());
    assertEquals(Duration.ofSeconds(2), c.reconnectBackoffMax());
  }

  @Test
  void keepalive_isAThirdOfTheIdleTimeout_unlessSet_andMustBeShorter() {
    TransportConfig c = TransportConfig.builder("c").build();
    assertEquals(Duration.ofSeconds(60), c.idleTimeout());
    assertEquals(Duration.ofSeconds(20), c.keepaliveInterval());
    TransportConfig shorter =
        TransportConfig.builder("c").idleTimeout(Duration.ofMillis(3)).build();
    assertEquals(Duration.ofMillis(1), shorter.keepaliveInterval());
    assertEquals(
        Duration.ofMillis(100),
        TransportConfig.builder("c")
            .idleTimeout(Duration.ofSeconds(1))
            .keepaliveInterval(Duration.ofMillis(100))
            .build()
            .keepaliveInterval());
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                TransportConfig.builder("c")
                    .idleTimeout(Duration.ofSeconds(1))
                    .keepaliveInterval(Duration.ofSeconds(1))
                    .build());
    assertTrue(e.getMessage().contains("keepaliveInterval"), e.getMessage());
  }

  @Test
  void eachSetting_hasItsOwnSetter_andTheBuilderReadsItBack_unchecked() {
    TransportConfig.Builder b =
        TransportConfig.builder("c")
            .writeBufferHighWaterMarkBytes(16 << 20)
            .writeBufferLowWaterMarkBytes(8 << 20)
            .connectTimeout(Duration.ofMillis(1500))
            .reconnectBackoffMax(Duration.ofSeconds(9))
            .reconnectBackoffMin(Duration.ofMillis(5));
    assertEquals(8 << 20, b.writeBufferLowWaterMarkBytes());
    assertEquals(Duration.ofMillis(1500), b.connectTimeout());
    TransportConfig c = b.build();
    assertEquals(8 << 20, c.writeBufferLowWaterMarkBytes());
    assertEquals(16 << 20, c.writeBufferHighWaterMarkBytes());
    assertEquals(Duration.ofMillis(5), c.reconnectBackoffMin());
    assertEquals(Duration.ofSeconds(9), c.reconnectBackoffMax());
    assertEquals(c, b.build(), "equal settings, equal configs");
    assertNotEquals(c, TransportConfig.builder("c").build());
  }

  @Test
  void build_refusesWhatTheTransportCannotUse_namingTheSetting() {
    for (var bad :
        java.util.Map.<String, TransportConfig.Builder>of(
                "writeBufferLowWaterMarkBytes",
                TransportConfig.builder("c").writeBufferLowWaterMarkBytes(5 << 20),
                "reconnectBackoffMin",
                TransportConfig.builder("c").reconnectBackoffMin(Duration.ofSeconds(3)),
                "connectTimeout",
                TransportConfig.builder("c").connectTimeout(Duration.ofNanos(999_999)),
                "maxQueuedFramesPerConnection",
                TransportConfig.builder("c").maxQueuedFramesPerConnection(0))
            .entrySet()) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, bad.getValue()::build, bad.getKey());
      assertTrue(e.getMessage().contains(bad.getKey()), e.getMessage());
    }
  }
}
