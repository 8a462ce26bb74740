package io.frsm.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test, or its test class, when Netty reports a leaked buffer.
 *
 * <p>Registered for every JUnit Jupiter test of the modules that run Netty (frsm-consensus, and
 * through its test jar frsm-server and frsm-bench) by JUnit's extension auto-detection: {@code
 * junit-platform.properties} turns it on and {@code
 * META-INF/services/org.junit.jupiter.api.extension.Extension} names this class. No test class has
 * to remember an annotation.
 *
 * <p>Netty logs a leak through its logging facade (java.util.logging directly, or SLF4J bound to
 * java.util.logging in frsm-server) under {@code io.netty.util.ResourceLeakDetector}; with {@code
 * -Dio.netty.leakDetection.level=paranoid} (set in the modules' poms) every buffer is tracked. A
 * leak is only noticed after the garbage collector cleared the buffer and a later allocation polls
 * the detector's queue. So after each test this allocates a few buffers (cheap: it reports leaks
 * whose buffers were already collected), and after each test class it also collects garbage first
 * (a few hundred milliseconds at most, once per class) so that a class's last leaks are not missed.
 * A leak found after a test fails that test; one found only after the class fails the class. The
 * report carries the buffer's allocation trace, which names the culprit even when the leak is
 * noticed in a later test.
 */
public final class NettyLeakCheck implements AfterEachCallback, AfterAllCallback {
  /** One capture for the JVM: leaks are reported once, and whoever looks first drains them. */
  private static final LeakReports REPORTS = new LeakReports();

  @Override
  public void afterEach(ExtensionContext context) {
    assertEquals(List.of(), REPORTS.poll(), "Netty reported leaked buffers");
  }

  @Override
  public void afterAll(ExtensionContext context) {
    assertEquals(
        List.of(), REPORTS.collectAndPoll(), "Netty reported leaked buffers after the test class");
  }

  /** Collects garbage, lets the detector look, and returns (and forgets) what it reported. */
  static List<String> leaksNow() {
    return REPORTS.collectAndPoll();
  }

  static boolean paranoid() {
    return ResourceLeakDetector.getLevel() == ResourceLeakDetector.Level.PARANOID;
  }

  /** The detector's error reports since they were last drained. Thread-safe. */
  private static final class LeakReports extends Handler {
    // Held strongly: java.util.logging keeps loggers weakly, and this class collects garbage.
    private final Logger detectorLog = Logger.getLogger(ResourceLeakDetector.class.getName());
    private final List<String> leaks = new ArrayList<>();

    LeakReports() {
      detectorLog.addHandler(this);
    }

    @Override
    public synchronized void publish(LogRecord record) {
      if (record.getLevel().intValue() >= Level.SEVERE.intValue()) {
        leaks.add(record.getMessage());
      }
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}

    List<String> poll() {
      allocateProbes();
      return drain();
    }

    List<String> collectAndPoll() {
      for (int i = 0; i < 3; i++) {
        collectGarbage();
        allocateProbes();
      }
      return drain();
    }

    private synchronized List<String> drain() {
      List<String> out = List.copyOf(leaks);
      leaks.clear();
      return out;
    }

    /** In paranoid mode every allocation first reports the leaks already collected. */
    private static void allocateProbes() {
      for (int j = 0; j < 16; j++) {
        ByteBuf probe = PooledByteBufAllocator.DEFAULT.buffer(16);
        probe.release();
      }
    }

    /**
     * A full collection, then a wait (bounded) until the JVM's reference handler has queued a
     * sentinel cleared by it: the detector's references cleared by the same collection are queued
     * in the same pass, so the probes that follow find them.
     */
    private static void collectGarbage() {
      ReferenceQueue<Object> cleared = new ReferenceQueue<>();
      WeakReference<Object> sentinel = new WeakReference<>(new Object(), cleared);
      System.gc();
      try {
        cleared.remove(2_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      sentinel.clear();
    }
  }
}
