package io.frsm.consensus.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test when Netty reports a leaked buffer. Netty logs leaks through java.util.logging (no
 * other logging backend is on the test class path) under {@code
 * io.netty.util.ResourceLeakDetector}; with {@code -Dio.netty.leakDetection.level=paranoid} (set in
 * this module's pom) every buffer is tracked. A leak is only noticed after the garbage collector
 * cleared the buffer and a later allocation polls the detector's queue, so after each test this
 * collects garbage and allocates a few times before looking. Public for other modules' transport
 * tests (frsm-consensus's test jar).
 */
public final class NettyLeakCheck implements BeforeEachCallback, AfterEachCallback {
  private static final Logger DETECTOR_LOG = Logger.getLogger(ResourceLeakDetector.class.getName());

  private final Handler capture =
      new Handler() {
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
      };
  private final List<String> leaks = new ArrayList<>();

  @Override
  public void beforeEach(ExtensionContext context) {
    DETECTOR_LOG.addHandler(capture);
  }

  @Override
  public void afterEach(ExtensionContext context) {
    try {
      assertEquals(List.of(), leaksNow(), "Netty reported leaked buffers");
    } finally {
      stop();
    }
  }

  void stop() {
    DETECTOR_LOG.removeHandler(capture);
  }

  /** Collects garbage, lets the detector look, and returns what it reported. */
  List<String> leaksNow() {
    for (int i = 0; i < 3; i++) {
      System.gc();
      for (int j = 0; j < 16; j++) {
        ByteBuf probe = PooledByteBufAllocator.DEFAULT.buffer(16);
        probe.release();
      }
    }
    synchronized (capture) {
      return List.copyOf(leaks);
    }
  }

  static boolean paranoid() {
    return ResourceLeakDetector.getLevel() == ResourceLeakDetector.Level.PARANOID;
  }
}
