package io.frsm.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.transport.DeliberateLeak;
import io.netty.util.ResourceLeakDetector;
import org.junit.jupiter.api.Test;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * This module's tests and ITs run with paranoid leak detection and the leak check that
 * frsm-transport's test jar registers for every test: a test here that leaks a buffer fails without
 * naming any extension (the same class path serves surefire and failsafe).
 */
class NettyLeakCheckActiveTest {

  @Test
  void testsRun_withParanoidLeakDetection() {
    assertEquals(ResourceLeakDetector.Level.PARANOID, ResourceLeakDetector.getLevel());
  }

  @Test
  void leakingTest_fails() {
    TestExecutionSummary summary = DeliberateLeak.runLeakingTest();
    assertEquals(1, summary.getTestsFoundCount(), "the leaking test ran");
    assertEquals(1, summary.getTotalFailureCount(), "exactly one failure: the leak");
    Throwable failure = summary.getFailures().get(0).getException();
    assertTrue(
        String.valueOf(failure.getMessage()).contains("Netty reported leaked buffers"),
        String.valueOf(failure));
  }
}
