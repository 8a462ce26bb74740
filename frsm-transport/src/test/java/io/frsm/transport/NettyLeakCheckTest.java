package io.frsm.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/** The leak check itself: it must see a buffer nobody released, or it proves nothing. */
class NettyLeakCheckTest {

  @Test
  void testsRun_withParanoidLeakDetection() {
    assertTrue(
        NettyLeakCheck.paranoid(), "surefire must pass -Dio.netty.leakDetection.level=paranoid");
  }

  @Test
  void unreleasedBuffer_isReported() {
    leakOne();
    List<String> seen = List.of();
    for (int attempt = 0; attempt < 20 && seen.isEmpty(); attempt++) {
      seen = NettyLeakCheck.leaksNow(); // drains: this test's own check finds nothing after it
    }
    assertFalse(seen.isEmpty(), "the leak check saw the leaked buffer");
    assertTrue(seen.get(0).contains("LEAK"), seen.get(0));
  }

  /**
   * The check is registered for every test by auto-detection: a test class that names no extension
   * and leaks a buffer fails (the test itself, or its class once garbage was collected).
   */
  @Test
  void leakingTest_failsWithoutAnyAnnotation() {
    TestExecutionSummary summary = DeliberateLeak.runLeakingTest();
    assertEquals(1, summary.getTestsFoundCount(), "the leaking test ran");
    assertEquals(1, summary.getTotalFailureCount(), "exactly one failure: the leak");
    Throwable failure = summary.getFailures().get(0).getException();
    assertTrue(
        String.valueOf(failure.getMessage()).contains("Netty reported leaked buffers"),
        String.valueOf(failure));
    assertTrue(
        String.valueOf(failure.getMessage()).contains("DeliberateLeak"),
        "the report names where the buffer was allocated: " + failure.getMessage());
  }

  private static void leakOne() {
    ByteBuf leaked = PooledByteBufAllocator.DEFAULT.buffer(64);
    leaked.writeLong(42);
  }
}
