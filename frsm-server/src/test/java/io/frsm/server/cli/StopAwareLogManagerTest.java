package io.frsm.server.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

class StopAwareLogManagerTest {
  private static int loggers;

  @Test
  void aResetWhileAStopIsPending_waitsForTheStop_andTheStopStillLogs() {
    StopAwareLogManager manager = new StopAwareLogManager();
    Recording handler = new Recording();
    Logger logger = logger(manager, handler);
    Runnable stop =
        manager.keeping(
            () -> {
              manager.reset(); // what LogManager's own shutdown hook does meanwhile
              logger.info("node 1 stopping: 16 range(s) handed off");
            });
    manager.reset(); // the hooks start together: the manager's may come first
    assertFalse(handler.closed, "closed while a stop was pending");
    stop.run();
    assertEquals(List.of("node 1 stopping: 16 range(s) handed off"), handler.messages);
    assertTrue(handler.closed, "the deferred reset ran when the stop ended");
    assertArrayEquals(new Handler[0], logger.getHandlers());
  }

  @Test
  void aResetWithNoStopPending_closesAtOnce_andAStopThatFailsStillReleases() {
    StopAwareLogManager manager = new StopAwareLogManager();
    Recording first = new Recording();
    logger(manager, first);
    manager.reset();
    assertTrue(first.closed);

    Recording second = new Recording();
    logger(manager, second);
    Runnable failing =
        manager.keeping(
            () -> {
              throw new IllegalStateException("the stop failed");
            });
    manager.reset();
    assertFalse(second.closed);
    try {
      failing.run();
    } catch (IllegalStateException expected) {
      // the stop's own failure goes on to the hook
    }
    assertTrue(second.closed, "released even though the stop threw");
  }

  private static Logger logger(StopAwareLogManager manager, Handler handler) {
    Logger logger = Logger.getLogger(StopAwareLogManagerTest.class.getName() + "." + loggers++);
    logger.setUseParentHandlers(false);
    logger.addHandler(handler);
    assertTrue(manager.addLogger(logger));
    return logger;
  }

  private static final class Recording extends Handler {
    final List<String> messages = new ArrayList<>();
    boolean closed;

    @Override
    public void publish(LogRecord record) {
      if (closed) {
        return; // as a closed console handler: the line is lost
      }
      messages.add(record.getMessage());
    }

    @Override
    public void flush() {}

    @Override
    public void close() {
      closed = true;
    }
  }
}
