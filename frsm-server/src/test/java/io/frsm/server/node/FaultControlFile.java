package io.frsm.server.node;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The faults of a node process, set at run time by the test process through a small text file the
 * node polls (the multi-process fault suite, {@link FaultyNodeMain}). The file holds the node's
 * whole fault state, one directive a line; an empty or missing file is no fault:
 *
 * <pre>
 * dropTo 2 3        # drop every peer message this node sends to nodes 2 and 3
 * dropFrom 2        # drop every peer message this node receives from node 2
 * delayTo 3 150     # hold the peer messages to node 3 for 150 ms
 * clockOffset -400  # this node's wall clock reads 400 ms behind the machine's
 * </pre>
 *
 * <p>The test replaces the file atomically (write a sibling, then rename), so a poll never reads
 * half of it. A file that does not parse (or is larger than {@link #MAX_BYTES}) changes nothing and
 * is reported once on standard error: the node keeps its previous faults and never stops on it.
 */
public final class FaultControlFile {
  static final int MAX_BYTES = 4096;
  private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

  /** One parsed state of the file. */
  record State(
      List<Integer> dropTo, List<Integer> dropFrom, List<long[]> delays, Duration clockOffset) {}

  private final Path file;
  private final PeerLinkFaults faults;
  private String applied = "";
  private String rejected;

  FaultControlFile(Path file, PeerLinkFaults faults) {
    this.file = file;
    this.faults = faults;
  }

  /** Polls the file on a daemon thread of its own until the process ends. */
  void startPolling() {
    Thread t =
        new Thread(
            () -> {
              while (true) {
                pollOnce();
                LockSupport.parkNanos(POLL_NANOS);
              }
            },
            "frsm-fault-control");
    t.setDaemon(true);
    t.start();
  }

  /** Reads the file and applies it if it changed since the last poll. */
  void pollOnce() {
    String text;
    try {
      if (Files.size(file) > MAX_BYTES) {
        reject("larger than " + MAX_BYTES + " bytes", "");
        return;
      }
      text = Files.readString(file, StandardCharsets.US_ASCII);
    } catch (NoSuchFileException missing) {
      text = "";
    } catch (IOException | RuntimeException e) {
      return; // replaced under us, or not ASCII: the next poll sees the whole file or rejects it
    }
    if (text.equals(applied)) {
      return;
    }
    try {
      apply(parse(text));
      applied = text;
      rejected = null;
      System.out.println("fault control: now " + (text.isBlank() ? "no fault" : oneLine(text)));
    } catch (IllegalArgumentException e) {
      reject(e.getMessage(), text);
    }
  }

  private void reject(String why, String text) {
    if (!text.equals(rejected)) {
      rejected = text;
      System.err.println("fault control: " + file + " ignored: " + why);
    }
  }

  private void apply(State s) {
    faults.heal();
    s.dropTo().forEach(faults::cutTo);
    s.dropFrom().forEach(faults::cutFrom);
    for (long[] d : s.delays()) {
      faults.delayTo((int) d[0], Duration.ofMillis(d[1]));
    }
    WallClock.offsetForTests(s.clockOffset());
  }

  /**
   * @throws IllegalArgumentException naming the line that is not a directive
   */
  static State parse(String text) {
    List<Integer> dropTo = new ArrayList<>();
    List<Integer> dropFrom = new ArrayList<>();
    List<long[]> delays = new ArrayList<>();
    Duration offset = Duration.ZERO;
    for (String raw : text.split("\n", -1)) {
      String line = raw.strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String[] w = line.split("\\s+");
      switch (w[0]) {
        case "dropTo" -> nodes(w, line).forEach(dropTo::add);
        case "dropFrom" -> nodes(w, line).forEach(dropFrom::add);
        case "delayTo" -> {
          expect(w.length == 3, line);
          delays.add(new long[] {node(w[1], line), number(w[2], 0, 60_000, line)});
        }
        case "clockOffset" -> {
          expect(w.length == 2, line);
          offset = Duration.ofMillis(number(w[1], -3_600_000, 3_600_000, line));
        }
        default -> throw new IllegalArgumentException("unknown directive: " + line);
      }
    }
    return new State(dropTo, dropFrom, delays, offset);
  }

  private static List<Integer> nodes(String[] w, String line) {
    expect(w.length >= 2, line);
    List<Integer> ids = new ArrayList<>();
    for (int i = 1; i < w.length; i++) {
      ids.add(node(w[i], line));
    }
    return ids;
  }

  private static int node(String word, String line) {
    return (int) number(word, 1, Integer.MAX_VALUE, line);
  }

  private static long number(String word, long min, long max, String line) {
    try {
      long n = Long.parseLong(word);
      expect(n >= min && n <= max, line);
      return n;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("not a number in: " + line, e);
    }
  }

  private static void expect(boolean ok, String line) {
    if (!ok) {
      throw new IllegalArgumentException("malformed: " + line);
    }
  }

  private static String oneLine(String text) {
    return text.strip().replaceAll("\\s*\n\\s*", "; ");
  }

  /** What the test writes: the file replaced whole, atomically. */
  public static void write(Path file, String text) throws IOException {
    Path next = file.resolveSibling(file.getFileName() + ".next");
    Files.writeString(next, text, StandardCharsets.US_ASCII);
    Files.move(
        next,
        file,
        java.nio.file.StandardCopyOption.REPLACE_EXISTING,
        java.nio.file.StandardCopyOption.ATOMIC_MOVE);
  }
}
