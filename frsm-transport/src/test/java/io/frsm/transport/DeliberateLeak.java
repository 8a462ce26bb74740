package io.frsm.transport;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import org.junit.jupiter.api.Test;
import org.junit.platform.launcher.EngineFilter;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * Runs a test that leaks a buffer, in a JUnit launcher of its own with the configuration the build
 * uses (junit-platform.properties is read as in any run; nothing is passed here), and returns what
 * happened: the proof that the auto-registered {@link NettyLeakCheck} fails a leaking test in the
 * module whose class path runs this. Public for the other modules' tests (test jar).
 */
public final class DeliberateLeak {
  private DeliberateLeak() {}

  /** Runs {@link LeakingTest} and returns the run's summary. */
  public static TestExecutionSummary runLeakingTest() {
    LauncherDiscoveryRequest request =
        LauncherDiscoveryRequestBuilder.request()
            .selectors(selectClass(LeakingTest.class))
            .filters(EngineFilter.includeEngines("junit-jupiter"))
            .build();
    SummaryGeneratingListener summary = new SummaryGeneratingListener();
    LauncherFactory.create().execute(request, summary);
    return summary.getSummary();
  }

  /**
   * Leaks one buffer and otherwise passes; no extension named. A nested class, so surefire and
   * failsafe never run it on their own (they skip nested classes).
   */
  static final class LeakingTest {
    @Test
    void leaksOneBuffer() {
      allocateAndForget();
    }

    private static void allocateAndForget() {
      ByteBuf leaked = PooledByteBufAllocator.DEFAULT.buffer(32);
      leaked.writeInt(7);
    }
  }
}
