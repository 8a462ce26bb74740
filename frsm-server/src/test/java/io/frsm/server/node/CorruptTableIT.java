package io.frsm.server.node;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.CasMismatchException;
import io.frsm.api.FrsmClient;
import io.frsm.api.NotExecutedException;
import io.frsm.api.OutcomeUnknownException;
import io.frsm.api.Versioned;
import io.frsm.consensus.core.Placement;
import io.frsm.server.membership.MembershipChange;
import io.frsm.server.zk.RingHistory;
import io.frsm.server.zk.RingVersion;
import io.frsm.server.zk.ZkLayout;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntConsumer;
import java.util.stream.Stream;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 23 point 3 on a real three-node cluster: a random byte of a random SSTable of the natural
 * leader of counter 0's range is flipped while it is down. It must start (never fatal on a corrupt
 * table), and be repaired with no hand on it: its agent requests a repair once the quarantine is
 * found (at open, or by the scrub), it is a learner of the touched ranges for one ring version —
 * while the other two serve them under a hot-key load — releases its quarantine, and is a voter
 * again at the final version with nothing quarantined. Then it leads its range again and serves
 * every key, and every counter equals the increments acknowledged (none lost, none doubled, no
 * damaged value ever returned). Each counter's increments are sequential from one client per phase,
 * so an unknown outcome is resolved exactly by a fence and a read.
 *
 * <p>A phase spreads the counters over {@link #CALLERS} threads, each counter on one of them: the
 * hot-key load keeps both CPUs of the test machine busy, and one sequential caller waited out that
 * queue 5,700 times (about 20 ms per call, 120 s of the 2026-11-27 CI run).
 */
class CorruptTableIT {
  private static final int KEYS = 300;
  private static final String PADDING = "-".repeat(48); // several blocks per table
  private static final Duration DEADLINE = Duration.ofSeconds(120);

  /** Threads a phase spreads its counters over; one counter is only ever on one of them. */
  private static final int CALLERS = 8;

  private final long[] expected = new long[KEYS];

  @Test
  void flippedByteInATable_nodeIsRepairedWithNoHandOnIt_noIncrementLostOrDoubled(@TempDir Path dir)
      throws Exception {
    try (TestCluster cluster =
            TestCluster.withTweaks(
                dir,
                b ->
                    b.lsm(
                        l ->
                            l.scrubStartDelay(Duration.ofMillis(200))
                                .scrubThroughputBytesPerSecond(64L << 20)));
        CuratorFramework zk = RingHistoryIT.connect(cluster)) {
      ZkLayout layout = new ZkLayout(TestCluster.CLUSTER_ID);
      RingHistory history = new RingHistory(zk, layout);
      Placement formed = cluster.ring().placement();
      RingVersion initial = RingVersion.initial(formed);
      int range = cluster.rangeOf(key(0));
      int victim = cluster.ring().replicasOfRange(range).get(0);
      int other = victim % cluster.size() + 1;
      FrsmClient setup = cluster.node(other).client();
      eachCounter(k -> setup.create(key(k), encode(0)));
      List<Integer> victimRanges = new ArrayList<>();
      for (int r = 0; r < formed.rangeCount(); r++) {
        if (formed.replicas(r).contains(victim)) {
          victimRanges.add(r);
        }
      }
      HotKeyLoad load = new HotKeyLoad(cluster, victimRanges);
      for (int seed = 1; seed <= 2; seed++) {
        incrementAll(cluster.node(other).client());
        cluster.node(victim).engine().flush().get();
        long before = history.newest(initial).version();
        cluster.crash(victim);
        Path flipped = flipRandomByte(dir.resolve("node-" + victim).resolve("data"), seed);

        FrsmNode restarted = cluster.restart(victim); // never fatal on a corrupt table
        // The repair: a learner version, then a voter version, with no call from here.
        long[] learnerSince = {0};
        List<Long> learnerWindow = new ArrayList<>();
        Await.until(
            () -> {
              RingVersion newest = quietly(() -> history.newest(initial));
              if (newest.version() > before
                  && learnerSince[0] == 0
                  && newest.placement().nodes().contains(victim)
                  && restarted.ringVersion() == newest.version()
                  && isLearnerSomewhere(newest.placement(), victim)) {
                learnerSince[0] = System.nanoTime();
              }
              if (learnerSince[0] != 0
                  && learnerWindow.isEmpty()
                  && !isLearnerSomewhere(
                      quietly(() -> history.read(initial, null))
                          .get((int) restarted.ringVersion())
                          .placement(),
                      victim)) {
                learnerWindow.add(learnerSince[0]);
                learnerWindow.add(System.nanoTime());
              }
              return newest.version() > before
                  && quietly(() -> pending(zk, layout)) == null
                  && restarted.needsRepair().isEmpty()
                  && restarted.ringVersion() == newest.version();
            },
            DEADLINE,
            "node " + victim + " to be repaired (flipped a byte of " + flipped.getFileName() + ")");
        RingVersion last = history.newest(initial);
        for (int r = 0; r < formed.rangeCount(); r++) {
          assertEquals(formed.replicas(r), last.placement().replicas(r), "voters of range " + r);
          assertTrue(last.placement().learners(r).isEmpty(), "no learner in range " + r);
        }
        assertEquals(2, learnerWindow.size(), "node " + victim + " was a learner, then a voter");
        // While it was a learner, the other two served its ranges.
        long from = learnerWindow.get(0);
        long to = learnerWindow.get(1);
        assertTrue(
            load.keys().stream()
                .anyMatch(k -> k.writesAcknowledged.stream().anyMatch(t -> t >= from && t <= to)),
            "an increment acknowledged while node " + victim + " was a learner");

        cluster.awaitLeader(range, victim, DEADLINE);
        incrementAll(restarted.client()); // through the repaired node, as leader of its ranges
        incrementAll(cluster.thinClient());
        // Read every key through every node: exact counts, whatever the damaged node lost.
        for (int id = 1; id <= cluster.size(); id++) {
          FrsmClient c = cluster.node(id).client();
          eachCounter(
              k -> assertEquals(expected[k], decode(c.get(key(k)).orElseThrow()), "counter " + k));
        }
        assertTrue(restarted.serving());
        System.out.printf(
            "corrupt table: seed %d flipped a byte of %s on node %d; it was repaired through ring"
                + " versions %d..%d (a learner for %d ms), leads range %d again; every counter"
                + " exact%n",
            seed,
            flipped.getFileName(),
            victim,
            before + 1,
            last.version(),
            (to - from) / 1_000_000,
            range);
      }
      load.awaitIncrementsAfter(System.nanoTime(), DEADLINE, "increments after the repairs");
      load.close();
      assertEquals(List.of(), load.counterViolations(cluster.thinClient()));
    }
  }

  private static boolean isLearnerSomewhere(Placement p, int node) {
    for (int r = 0; r < p.rangeCount(); r++) {
      if (p.learners(r).contains(node)) {
        return true;
      }
    }
    return false;
  }

  private static MembershipChange pending(CuratorFramework zk, ZkLayout layout) throws Exception {
    try {
      return MembershipChange.decode(zk.getData().forPath(layout.membershipChange()));
    } catch (KeeperException.NoNodeException none) {
      return null;
    }
  }

  @FunctionalInterface
  private interface Call<T> {
    T get() throws Exception;
  }

  private static <T> T quietly(Call<T> call) {
    try {
      return call.get();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static Path flipRandomByte(Path dataDirectory, long seed) throws Exception {
    List<Path> tables;
    try (Stream<Path> files = Files.list(dataDirectory)) {
      tables = files.filter(p -> p.getFileName().toString().startsWith("sst-")).sorted().toList();
    }
    Random random = new Random(seed);
    Path table = tables.get(random.nextInt(tables.size()));
    try (RandomAccessFile f = new RandomAccessFile(table.toFile(), "rw")) {
      long at = (long) (random.nextDouble() * f.length());
      f.seek(at);
      int b = f.read();
      f.seek(at);
      f.write(b ^ (1 + random.nextInt(255)));
    }
    return table;
  }

  /** One acknowledged increment of every counter (each counter's calls sequential). */
  private void incrementAll(FrsmClient client) throws Exception {
    eachCounter(k -> increment(client, k));
  }

  /**
   * Runs {@code call} once per counter, counter {@code k} on caller {@code k % CALLERS}, and
   * returns once every call did; the first failure is thrown as it was. Ending each phase here
   * orders {@link #expected}'s writes before the next phase's reads.
   */
  private static void eachCounter(IntConsumer call) throws Exception {
    ExecutorService callers = Executors.newFixedThreadPool(CALLERS);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int c = 0; c < CALLERS; c++) {
        int caller = c;
        done.add(
            callers.submit(
                () -> {
                  for (int k = caller; k < KEYS; k += CALLERS) {
                    call.accept(k);
                  }
                }));
      }
      for (Future<?> f : done) {
        try {
          f.get();
        } catch (ExecutionException e) {
          if (e.getCause() instanceof Error error) {
            throw error;
          }
          throw e;
        }
      }
    } finally {
      callers.shutdownNow();
    }
  }

  private void increment(FrsmClient client, int k) {
    long deadline = System.nanoTime() + DEADLINE.toNanos();
    Versioned current = null;
    while (System.nanoTime() - deadline < 0) {
      try {
        if (current == null) {
          current = client.get(key(k)).orElseThrow();
        }
        assertEquals(expected[k], decode(current), "counter " + k + " before an increment");
        client.cas(key(k), current.version(), encode(expected[k] + 1));
        expected[k]++;
        return;
      } catch (CasMismatchException e) {
        throw new AssertionError("a sequential increment met another write: " + e, e);
      } catch (OutcomeUnknownException e) {
        Versioned fenced = fenceUntilAnswered(client, k, deadline);
        if (decode(fenced) == expected[k] + 1) {
          expected[k]++;
          return;
        }
        current = fenced;
      } catch (NotExecutedException e) {
        current = null;
      }
    }
    throw new AssertionError("the increment of counter " + k + " never finished");
  }

  private static Versioned fenceUntilAnswered(FrsmClient client, int k, long deadline) {
    while (System.nanoTime() - deadline < 0) {
      try {
        return client.fence(key(k)).orElseThrow();
      } catch (NotExecutedException | OutcomeUnknownException e) {
        // fence again
      }
    }
    throw new AssertionError("no fence of counter " + k + " finished");
  }

  private static byte[] key(int k) {
    return ("corrupt-" + k).getBytes(US_ASCII);
  }

  private static byte[] encode(long count) {
    return (count + PADDING).getBytes(US_ASCII);
  }

  private static long decode(Versioned v) {
    String s = new String(v.value(), US_ASCII);
    return Long.parseLong(s.substring(0, s.indexOf('-')));
  }
}
