package io.frsm.bench.experiment;

import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import io.frsm.lsm.memtable.Memtable;
import io.frsm.server.workload.WorkloadRunner;
import io.frsm.server.workload.ZipfianKeys;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.SplittableRandom;

/**
 * What one replica's memtable costs the young collector, on one thread, with no network, no disk
 * and no other JVM on the CPUs (issue 26 point 3): run it with {@code -Xlog:gc*=debug:file=LOG} and
 * read the log with {@code frsm-bench/scripts/gc-summary.py}. With the young generation's size
 * fixed ({@code -Xmn}; G1 otherwise sizes it from its pause-time predictions, which a loaded
 * machine skews), the bytes each young pause copies depend on the write stream and the collector's
 * settings, not on how busy the machine is, so collector options can be compared here while other
 * work loads the machine — the latency they buy is for a cluster run to show.
 *
 * <p>The stream is the paper's, seen by one replica: operations on Zipf 0.99 keys, 57% of them a
 * CAS that writes the key twice (its accepted value, with a fresh value array as decoded from a
 * message, then the same value marked chosen by the commit), 43% a get that writes nothing. Each
 * operation also allocates {@code --garbage} bytes that die at once (a node allocated about 9 KB
 * per operation in the counts of 2026-11-27: messages, buffers, futures). A memtable whose
 * estimated size reaches {@code --flush-mib} is frozen and kept {@code --flushing} more memtables
 * long (standing in for its flush), then dropped.
 *
 * <pre>
 * java -Xms1g -Xmx1g -Xmn64m -XX:+UseG1GC -Xlog:gc*=debug:file=gc.log -cp frsm-bench.jar \
 *   io.frsm.bench.experiment.MemtableGcMain --ops 4000000
 * </pre>
 */
public final class MemtableGcMain {
  /** Where each operation's garbage is published, so the JIT cannot prove it unused and drop it. */
  @SuppressWarnings("unused")
  private static volatile byte[] lastGarbage;

  private MemtableGcMain() {}

  public static void main(String[] args) {
    long keys = 100_000;
    long ops = 4_000_000;
    int valueBytes = 512;
    int garbage = 9 * 1024;
    long flushBytes = 64L << 20;
    int flushing = 1;
    double casShare = 0.57;
    for (int i = 0; i < args.length; i += 2) {
      String v = args[i + 1];
      switch (args[i]) {
        case "--keys" -> keys = Long.parseLong(v);
        case "--ops" -> ops = Long.parseLong(v);
        case "--value" -> valueBytes = Integer.parseInt(v);
        case "--garbage" -> garbage = Integer.parseInt(v);
        case "--flush-mib" -> flushBytes = Long.parseLong(v) << 20;
        case "--flushing" -> flushing = Integer.parseInt(v);
        case "--cas-share" -> casShare = Double.parseDouble(v);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    ZipfianKeys zipf = new ZipfianKeys(keys, 0.99, 42);
    Key[] keyOf = new Key[(int) keys];
    for (int i = 0; i < keys; i++) {
      keyOf[i] = Key.of(WorkloadRunner.key(i));
    }
    SplittableRandom mix = new SplittableRandom(7);
    Deque<Memtable> frozen = new ArrayDeque<>();
    long memtableId = 0;
    Memtable active = new Memtable(memtableId++, 0, (k, kept, dropped) -> {});
    long flushes = 0;
    long writes = 0;
    long readsFound = 0;
    long started = System.nanoTime();
    for (long op = 1; op <= ops; op++) {
      lastGarbage = new byte[garbage]; // dies at the next operation, like a message's buffers
      if (mix.nextDouble() >= casShare) {
        Cell got = active.get(keyOf[(int) zipf.next()]);
        readsFound += got == null ? 0 : 1;
        continue;
      }
      Key key = keyOf[(int) zipf.next()];
      byte[] value = new byte[valueBytes];
      if (valueBytes > 0) {
        value[0] = (byte) op;
      }
      Ballot ballot = new Ballot(op, 1, 1);
      active.merge(Cell.accepted(key, AcceptedValue.live(1, op, ballot, value, false), op));
      active.merge(Cell.accepted(key, AcceptedValue.live(1, op, ballot, value, true), op));
      writes += 2;
      if (active.heapBytes() >= flushBytes) {
        active.freeze();
        frozen.addFirst(active);
        while (frozen.size() > flushing) {
          frozen.removeLast(); // flushed and released: unreachable from here on
        }
        active = new Memtable(memtableId++, op, (k, kept, dropped) -> {});
        flushes++;
      }
    }
    long elapsedMs = (System.nanoTime() - started) / 1_000_000;
    long gcCount = 0;
    long gcMs = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      gcCount += gc.getCollectionCount();
      gcMs += gc.getCollectionTime();
    }
    System.out.printf(
        "MEMTABLE_GC ops=%d writes=%d flushes=%d elapsed_ms=%d collections=%d collection_ms=%d"
            + " reads_found=%d%n",
        ops, writes, flushes, elapsedMs, gcCount, gcMs, readsFound);
  }
}
