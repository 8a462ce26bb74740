package io.frsm.consensus.transport;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import org.junit.jupiter.api.Test;

/** The leak check itself: it must see a buffer nobody released, or it proves nothing. */
class NettyLeakCheckTest {

  @Test
  void testsRun_withParanoidLeakDetection() {
    assertTrue(
        NettyLeakCheck.paranoid(), "surefire must pass -Dio.netty.leakDetection.level=paranoid");
  }

  @Test
  void unreleasedBuffer_isReported() {
    NettyLeakCheck check = new NettyLeakCheck();
    check.beforeEach(null);
    try {
      leakOne();
      boolean seen = false;
      for (int attempt = 0; attempt < 20 && !seen; attempt++) {
        seen = !check.leaksNow().isEmpty();
      }
      assertTrue(seen, "the leak check saw the leaked buffer");
    } finally {
      check.stop(); // not afterEach: that would fail on the leak made on purpose
    }
  }

  private static void leakOne() {
    ByteBuf leaked = PooledByteBufAllocator.DEFAULT.buffer(64);
    leaked.writeLong(42);
  }
}
