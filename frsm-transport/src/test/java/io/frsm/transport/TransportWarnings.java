package io.frsm.transport;

import io.frsm.client.transport.FrameDecoder;
import io.frsm.client.transport.InboundLimits;
import java.text.MessageFormat;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Captures the warnings the transport's inbound side logs when it refuses a connection (frame
 * decoder, port limits, peer handler, client server), formatted, until closed. Public for the other
 * modules' tests (test jar).
 */
public final class TransportWarnings implements AutoCloseable {
  private final List<String> warnings = new CopyOnWriteArrayList<>();

  /**
   * The frame decoder's lines below WARNING: it warns at most once a second across connections, and
   * logs each refused or cut-off connection at DEBUG (FINE), turned on while capturing.
   */
  private final List<String> details = new CopyOnWriteArrayList<>();

  private final Logger frameDecoder = Logger.getLogger(FrameDecoder.class.getName());
  private final Level frameDecoderLevel = frameDecoder.getLevel();

  // Held strongly: java.util.logging keeps loggers weakly, and the leak check collects garbage.
  private final List<Logger> loggers =
      List.of(
          Logger.getLogger(FrameDecoder.class.getName()),
          Logger.getLogger(InboundLimits.class.getName()),
          Logger.getLogger(PeerInboundHandler.class.getName()),
          Logger.getLogger(ClientProtocolServer.class.getName()));

  private final Handler capture =
      new Handler() {
        @Override
        public void publish(LogRecord r) {
          // System.Logger records carry a pattern and its parameters; SLF4J's (the client-side
          // classes, through slf4j-jdk14) arrive formatted, with none.
          Object[] parameters = r.getParameters();
          String text =
              parameters == null || parameters.length == 0
                  ? r.getMessage()
                  : MessageFormat.format(r.getMessage(), parameters);
          (r.getLevel().intValue() >= Level.WARNING.intValue() ? warnings : details).add(text);
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
      };

  private TransportWarnings() {
    loggers.forEach(l -> l.addHandler(capture));
    frameDecoder.setLevel(Level.FINE);
  }

  public static TransportWarnings capture() {
    return new TransportWarnings();
  }

  /** The warnings logged so far. */
  public List<String> all() {
    return List.copyOf(warnings);
  }

  /** The frame decoder's DEBUG lines logged so far: one per refused or cut-off connection. */
  public List<String> details() {
    return List.copyOf(details);
  }

  /**
   * Waits until a warning matching {@code wanted} was logged, or a frame decoder line at DEBUG (its
   * warnings are throttled across connections); fails after {@code deadline}.
   */
  public String await(Predicate<String> wanted, Duration deadline, String what) {
    long end = System.nanoTime() + deadline.toNanos();
    while (true) {
      for (List<String> lines : List.of(warnings, details)) {
        for (String w : lines) {
          if (wanted.test(w)) {
            return w;
          }
        }
      }
      if (System.nanoTime() - end > 0) {
        throw new AssertionError(
            "no warning " + what + " within " + deadline + "; logged: " + warnings);
      }
      LockSupport.parkNanos(1_000_000);
    }
  }

  /** Waits until a warning containing {@code fragment} was logged. */
  public String await(String fragment, Duration deadline) {
    return await(w -> w.contains(fragment), deadline, "containing '" + fragment + "'");
  }

  @Override
  public void close() {
    loggers.forEach(l -> l.removeHandler(capture));
    frameDecoder.setLevel(frameDecoderLevel);
  }
}
