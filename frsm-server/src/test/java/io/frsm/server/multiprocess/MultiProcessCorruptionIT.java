package io.frsm.server.multiprocess;

import static io.frsm.server.multiprocess.MultiProcessSupport.assertLinearizable;
import static io.frsm.server.multiprocess.MultiProcessSupport.awaitCondition;
import static io.frsm.server.multiprocess.MultiProcessSupport.awaitServing;
import static io.frsm.server.multiprocess.MultiProcessSupport.runFor;
import static io.frsm.server.multiprocess.MultiProcessSupport.writeHistory;
import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.frsm.api.FrsmClient;
import io.frsm.api.FrsmException;
import io.frsm.api.Versioned;
import io.frsm.server.workload.CounterCheck;
import io.frsm.server.zk.EmbeddedZooKeeper;
import io.frsm.testkit.history.HistoryRecorder;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 23's multi-process corruption run: three {@code frsm server} processes under the Appendix C
 * counter load (plus gets and creates/deletes), holding a few thousand other keys in SSTables. In
 * each round a random node is killed with {@code kill -9}, one bit of a random SSTable or of the
 * written part of a random commit-log segment of it is flipped, and the node is started again on
 * its directories. It must serve again and repair itself with no hand on it: the damage is found
 * (at open, by the scrub or by a read), its ranges are repaired from the other replicas, and its
 * quarantine is released. At the end every counter equals the increments that took effect, the
 * history is linearizable, and every other key reads back exactly as written — no damaged value is
 * ever served and no acknowledged write is lost.
 *
 * <p>Seeds: {@code -Dfrsm.corruption.seeds=1,2} (default: one fresh seed, printed), rounds per seed
 * {@code -Dfrsm.corruption.rounds=N} (default 2). A seed fixes the schedule (victims, files, bits),
 * not the load's interleaving. The history is written under {@code target/histories/}.
 */
@MultiProcess
class MultiProcessCorruptionIT {
  private static final String CLUSTER_ID = "corrupt-cluster";
  private static final int NODES = 3;
  private static final int COUNTERS = 3;
  private static final int HOT_COUNTER = 0;
  private static final int OTHER_KEYS = 3_000;
  private static final int OTHER_VALUE_BYTES = 200;
  private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(3);
  private static final Duration BOUNDED_DELAY = Duration.ofSeconds(2);
  private static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(3);
  private static final Duration READY_DEADLINE = Duration.ofSeconds(60);
  private static final Duration REPAIR_DEADLINE = Duration.ofSeconds(180);

  /** How long a restarted node that reported no damage is watched before the round ends. */
  private static final Duration QUIET_WATCH = Duration.ofSeconds(8);

  private static final Path NODE_OUTPUT = Path.of("target", "multiprocess");

  /** The scrub starts soon and reads fast, so damage in a data block is found within the round. */
  private static final List<String> LSM_SETTINGS =
      List.of("scrubStartDelay: 500ms", "scrubThroughputBytesPerSecond: 64MiB");

  private enum Target {
    SSTABLE,
    COMMIT_LOG
  }

  /** One flipped bit. */
  private record Damage(Target target, Path file, long offset, int bit) {
    @Override
    public String toString() {
      return target + " " + file.getFileName() + " byte " + offset + " bit " + bit;
    }
  }

  private final HistoryRecorder recorder = new HistoryRecorder(System::nanoTime);
  private final List<Process> processes = new CopyOnWriteArrayList<>();
  private final List<NodeProcess> nodes = new ArrayList<>();

  static Stream<Long> seeds() {
    String given = System.getProperty("frsm.corruption.seeds", "");
    if (!given.isBlank()) {
      return Arrays.stream(given.split(",")).map(String::strip).map(Long::parseLong);
    }
    return LongStream.of(System.nanoTime()).boxed();
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void flippedBitsInTablesAndCommitLogs_areRepairedWithNoHandOnThem_andNothingIsLost(
      long seed, @org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
    int rounds = Integer.getInteger("frsm.corruption.rounds", 2);
    String replay =
        "replay: ./mvnw -B -q -ntp -pl frsm-server -am verify -Dtest=NONE"
            + " -Dit.test=MultiProcessCorruptionIT -Dsurefire.failIfNoSpecifiedTests=false"
            + " -Dfailsafe.failIfNoSpecifiedTests=false -Dfrsm.corruption.seeds="
            + seed
            + " -Dfrsm.corruption.rounds="
            + rounds;
    System.out.println("multi-process corruption: seed " + seed + " (" + replay + ")");
    SplittableRandom random = new SplittableRandom(seed);
    Path history = Path.of("target", "histories", "multi-process-corruption-" + seed + ".jsonl");
    Thread killAll = new Thread(() -> MultiProcessSupport.killAll(processes), "corrupt-it-kill");
    Runtime.getRuntime().addShutdownHook(killAll);
    ClusterCertificates certs = ClusterCertificates.create(dir.resolve("certs"), CLUSTER_ID);
    FaultLoad load = null;
    try (EmbeddedZooKeeper zookeeper = EmbeddedZooKeeper.start(dir.resolve("zk"));
        RecordingClient client =
            new RecordingClient(recorder, () -> thinClient(certs, zookeeper.connectString()))) {
      FrsmClient plain = null;
      try {
        startNodes(dir, seed, certs, zookeeper.connectString());
        plain = thinClient(certs, zookeeper.connectString()); // needs a registered member
        writeOtherKeys(plain);
        List<byte[]> counterKeys = new ArrayList<>();
        for (int i = 0; i < COUNTERS; i++) {
          counterKeys.add(("corrupt-counter-" + i).getBytes(US_ASCII));
        }
        CounterCheck check = new CounterCheck(client, COUNTERS, "corrupt");
        load = new FaultLoad(client, check, counterKeys, HOT_COUNTER);
        load.start();
        List<String> report = new ArrayList<>();
        for (int round = 1; round <= rounds; round++) {
          runFor(Duration.ofMillis(random.nextLong(1_000, 3_001)), load);
          NodeProcess victim = nodes.get(random.nextInt(NODES));
          Target first = random.nextBoolean() ? Target.SSTABLE : Target.COMMIT_LOG;
          victim.kill(Duration.ofSeconds(10));
          Damage damage = damage(victim, first, random);
          if (damage == null) {
            damage =
                damage(
                    victim, first == Target.SSTABLE ? Target.COMMIT_LOG : Target.SSTABLE, random);
          }
          assertTrue(damage != null, "node " + victim.nodeId() + " holds no file to damage");
          long killed = System.nanoTime();
          victim.start();
          awaitServing(victim, READY_DEADLINE);
          String outcome = awaitRepaired(victim, damage, load);
          String line =
              String.format(
                  "round %d/%d: node %d killed, %s flipped: %s (%d ms from the kill); %d"
                      + " increments so far",
                  round,
                  rounds,
                  victim.nodeId(),
                  damage,
                  outcome,
                  TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed),
                  check.incrementsTookEffect());
          System.out.println(line);
          report.add(line);
          load.throwFailures();
        }
        runFor(Duration.ofSeconds(1), load);
        List<String> stuck = load.stop();
        assertTrue(stuck.isEmpty(), () -> "load threads did not stop: " + stuck);
        load.throwFailures();
        for (NodeProcess n : nodes) {
          assertTrue(n.isAlive(), "node " + n.nodeId() + " exited");
        }
        List<String> problems = check.verify();
        writeHistory(recorder, history);
        assertTrue(problems.isEmpty(), () -> "counters disagree: " + problems + "; " + replay);
        checkHistory(history, replay);
        checkOtherKeys(plain);
        System.out.printf(
            "multi-process corruption (seed %d): %s; %d increments took effect, %d unknown outcomes"
                + " resolved by fence, %d creates+deletes, %d client errors, %d other keys read"
                + " back exactly%n",
            seed,
            report.size() + " rounds",
            check.incrementsTookEffect(),
            check.unknownOutcomesResolved(),
            load.createsDeleted(),
            load.clientErrors(),
            OTHER_KEYS);
      } catch (Throwable e) {
        if (load != null) {
          load.stop();
        }
        try {
          writeHistory(recorder, history);
        } catch (Exception | Error writeFailed) {
          e.addSuppressed(writeFailed);
        }
        System.err.println("multi-process corruption failed (seed " + seed + "; " + replay + ")");
        for (NodeProcess n : nodes) {
          System.err.println(n.outputTail(60));
        }
        throw new AssertionError("seed " + seed + " failed (" + replay + ")", e);
      } finally {
        if (load != null) {
          load.stop();
        }
        if (plain != null) {
          plain.close();
        }
        MultiProcessSupport.killAll(processes);
      }
    } finally {
      MultiProcessSupport.killAll(processes);
      Runtime.getRuntime().removeShutdownHook(killAll);
    }
  }

  private void startNodes(Path dir, long seed, ClusterCertificates certs, String zookeeper)
      throws Exception {
    NodeProcess.Cluster cluster =
        new NodeProcess.Cluster(
            dir,
            NODE_OUTPUT.resolve("corruption-" + seed),
            zookeeper,
            SESSION_TIMEOUT,
            BOUNDED_DELAY,
            certs,
            processes);
    for (int id = 1; id <= NODES; id++) {
      nodes.add(cluster.node(id).withLsmSettings(LSM_SETTINGS));
    }
    for (NodeProcess n : nodes) {
      n.start();
    }
    for (NodeProcess n : nodes) {
      awaitServing(n, READY_DEADLINE);
    }
  }

  /**
   * Keys written once before the load, enough to be flushed into several tables on every node (the
   * nodes' memtables flush at 256 KiB), so a round finds tables to damage.
   */
  private static void writeOtherKeys(FrsmClient client) throws Exception {
    int inFlight = 64;
    List<Integer> failed = new ArrayList<>();
    for (int from = 0; from < OTHER_KEYS; from += inFlight) {
      List<CompletableFuture<?>> window = new ArrayList<>();
      for (int i = from; i < Math.min(OTHER_KEYS, from + inFlight); i++) {
        int key = i;
        window.add(
            client
                .createAsync(otherKey(i), otherValue(i))
                .handle(
                    (v, e) -> {
                      if (e != null) {
                        synchronized (failed) {
                          failed.add(key);
                        }
                      }
                      return null;
                    }));
      }
      CompletableFuture.allOf(window.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
    }
    for (int key : failed) {
      writeOtherKeyOnce(client, key); // a cluster just formed may not answer every first call
    }
  }

  /** Makes sure key {@code i} holds its value: fence resolves an earlier unknown outcome. */
  private static void writeOtherKeyOnce(FrsmClient client, int i) {
    long deadline = System.nanoTime() + READY_DEADLINE.toNanos();
    while (true) {
      try {
        Optional<Versioned> now = client.fence(otherKey(i));
        if (now.isEmpty()) {
          client.create(otherKey(i), otherValue(i));
        } else {
          assertTrue(Arrays.equals(otherValue(i), now.get().value()), "key " + i + " differs");
        }
        return;
      } catch (FrsmException e) {
        if (System.nanoTime() - deadline > 0) {
          throw e;
        }
      }
    }
  }

  private static void checkOtherKeys(FrsmClient client) {
    for (int i = 0; i < OTHER_KEYS; i++) {
      Optional<Versioned> got = client.get(otherKey(i));
      int key = i;
      assertTrue(got.isPresent(), () -> "key " + key + " was lost");
      assertTrue(
          Arrays.equals(otherValue(i), got.get().value()),
          () -> "key " + key + " reads back something else than was written");
    }
  }

  private static byte[] otherKey(int i) {
    return ("corrupt-other-" + i).getBytes(US_ASCII);
  }

  private static byte[] otherValue(int i) {
    byte[] value = new byte[OTHER_VALUE_BYTES];
    for (int b = 0; b < value.length; b++) {
      value[b] = (byte) ('a' + (i + b) % 26);
    }
    return value;
  }

  /**
   * Flips one bit of a random file of {@code target} of the (stopped) node: anywhere in an SSTable,
   * in the written part of a commit-log segment (a preallocated segment is mostly zeros no record
   * was written to). Null if the node has no such file.
   */
  private static Damage damage(NodeProcess victim, Target target, SplittableRandom random)
      throws IOException {
    List<Path> candidates = new ArrayList<>();
    List<Path> dirs =
        target == Target.SSTABLE ? List.of(victim.dataDirectory()) : victim.commitLogDirectories();
    for (Path d : dirs) {
      if (!Files.isDirectory(d)) {
        continue;
      }
      try (Stream<Path> files = Files.list(d)) {
        files
            .filter(Files::isRegularFile)
            .filter(
                p -> {
                  String name = p.getFileName().toString();
                  return target == Target.SSTABLE
                      ? name.startsWith("sst-") && name.endsWith(".db")
                      : name.startsWith("commitlog-") && name.endsWith(".log");
                })
            .sorted()
            .forEach(candidates::add);
      }
    }
    while (!candidates.isEmpty()) {
      Path file = candidates.remove(random.nextInt(candidates.size()));
      long end = target == Target.SSTABLE ? Files.size(file) : writtenBytes(file);
      // A segment holding only its 24-byte header has no record to damage.
      if (end > (target == Target.SSTABLE ? 0 : 32)) {
        long offset = random.nextLong(end);
        int bit = random.nextInt(8);
        flipBit(file, offset, bit);
        return new Damage(target, file, offset, bit);
      }
    }
    return null;
  }

  /** The length of the file up to its last non-zero byte. */
  private static long writtenBytes(Path file) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    int last = bytes.length - 1;
    while (last >= 0 && bytes[last] == 0) {
      last--;
    }
    return last + 1;
  }

  private static void flipBit(Path file, long offset, int bit) throws IOException {
    try (FileChannel channel =
        FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer one = ByteBuffer.allocate(1);
      channel.read(one, offset);
      one.put(0, (byte) (one.get(0) ^ (1 << bit)));
      one.rewind();
      channel.write(one, offset);
      channel.force(true);
    }
  }

  /**
   * Waits until the restarted node repaired itself, and says how the round ended: a repair that
   * finished with nothing left quarantined, or — when the node reported no damage while watched —
   * that the damaged file was one the node no longer needed (a table the manifest no longer names
   * is deleted at open).
   */
  private static String awaitRepaired(NodeProcess victim, Damage damage, FaultLoad load) {
    long serving = System.nanoTime();
    String[] outcome = new String[1];
    awaitCondition(
        () -> {
          load.throwFailures();
          if (!victim.isAlive()) {
            fail("node " + victim.nodeId() + " exited after " + damage);
          }
          String finished = victim.lastLineContaining("repair finished");
          if (finished != null) {
            if (finished.contains("still quarantined: []")) {
              outcome[0] = "repaired with no hand on it";
              return true;
            }
            return false; // another repair will follow for what is left
          }
          boolean started = victim.outputContains("repair started");
          if (!started
              && !Files.exists(damage.file())
              && System.nanoTime() - serving > QUIET_WATCH.toNanos()) {
            outcome[0] = "no damage reported: the file was no longer needed and is gone";
            return true;
          }
          return false;
        },
        REPAIR_DEADLINE,
        "node " + victim.nodeId() + " to repair " + damage);
    return outcome[0];
  }

  private void checkHistory(Path history, String replay) {
    // Thin clients leave τ to the node: an unknown outcome takes effect at the latest T after its
    // arrival, and a request arrives within the client timeout of its call.
    long bound = BOUNDED_DELAY.plus(CLIENT_TIMEOUT).plus(Duration.ofSeconds(2)).toNanos();
    assertLinearizable(recorder, bound, history, replay);
  }

  private static FrsmClient thinClient(ClusterCertificates certs, String zookeeper) {
    return MultiProcessSupport.thinClient(certs, zookeeper, CLIENT_TIMEOUT);
  }
}
