package io.frsm.bench.crsm;

import io.frsm.api.Version;
import io.frsm.cell.Ballot;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * A deterministic single-threaded simulation of one shard's three replicas: virtual time, a
 * priority queue of events, messages lost, duplicated and delayed (hence reordered), persists
 * completing after a random delay, clients sending commands to random replicas, and the leader
 * crashing once. Everything follows from the seed; a failure names it.
 *
 * <p>The safety checks live in {@link #check()}, apart from the simulator: replicas execute the
 * same batch at every slot (so the same command sequence), slots executed in order from 0, and
 * every Promise and Accepted leaves only after the state it reports is durable.
 */
final class CrsmSimulation {
  static final int NODES = 3;
  private static final int TICK_TIME = 10;

  /** Fault knobs, as probabilities per message. */
  record Faults(double drop, double duplicate, int maxDelay) {}

  private record Event(long time, long seq, int node, Object what) {}

  private record Delivery(int from, CrsmMessage message) {}

  private record PersistComplete(long persistId, CrsmEffect.LogRecord record) {}

  private record TickEvent() {}

  private record ClientArrival() {}

  private final long seed;
  private final Faults faults;
  private final SplittableRandom network;
  private final SplittableRandom disks;
  private final SplittableRandom clients;
  private final CrsmShardCore[] cores = new CrsmShardCore[NODES];
  private final boolean[] crashed = new boolean[NODES];
  private final PriorityQueue<Event> events =
      new PriorityQueue<>(
          (a, b) -> a.time != b.time ? Long.compare(a.time, b.time) : Long.compare(a.seq, b.seq));
  private long seq;
  private long time;
  private long nextRequestId;

  // What the checker needs.
  private final List<Map<Long, List<ClientCommand>>> executed = new ArrayList<>();
  private final long[] lastExecuted = new long[NODES];
  private final Ballot[] durablePromise = new Ballot[NODES];
  private final List<Set<String>> durableAccepts = new ArrayList<>();
  private final List<String> violations = new ArrayList<>();
  private final Map<Long, Version> lastVersionByKey = new HashMap<>();
  private long answered;
  private long answeredAfterCrash;
  private long crashTime = Long.MAX_VALUE;
  private long trace = 17;

  CrsmSimulation(long seed, Faults faults) {
    this.seed = seed;
    this.faults = faults;
    SplittableRandom root = new SplittableRandom(seed);
    this.network = root.split();
    this.disks = root.split();
    this.clients = root.split();
    CrsmConfig config = new CrsmConfig(NODES, 4, 3, ReadMode.LOG, 3, 8, 30, 16);
    for (int n = 0; n < NODES; n++) {
      cores[n] = new CrsmShardCore(n, 1, config, root.split());
      executed.add(new HashMap<>());
      durableAccepts.add(new HashSet<>());
      lastExecuted[n] = -1;
      durablePromise[n] = Ballot.NONE;
      schedule(TICK_TIME, n, new TickEvent());
    }
    schedule(0, -1, new ClientArrival());
  }

  /** Runs until {@code endTime}; the leader at {@code crashAt} (if any) crashes then. */
  CrsmSimulation run(long crashAt, long endTime) {
    apply(0, cores[0].step(new CrsmInput.Campaign()));
    boolean crashDone = false;
    while (!events.isEmpty() && events.peek().time <= endTime) {
      Event e = events.poll();
      time = e.time;
      if (!crashDone && time >= crashAt) {
        crashDone = true;
        crashLeader();
      }
      if (e.node >= 0 && crashed[e.node]) {
        continue;
      }
      dispatch(e);
    }
    return this;
  }

  private void crashLeader() {
    for (int n = 0; n < NODES; n++) {
      if (!crashed[n] && cores[n].isLeader()) {
        crashed[n] = true; // its pending persists and in-flight messages die with it
        crashTime = time;
        trace = trace * 31 + n;
        return;
      }
    }
  }

  private void dispatch(Event e) {
    int n = e.node;
    if (e.what instanceof ClientArrival) {
      submitClientCommand();
      schedule(time + 1 + clients.nextInt(6), -1, new ClientArrival());
      return;
    } else if (e.what instanceof TickEvent) {
      apply(n, cores[n].step(new CrsmInput.Tick()));
      schedule(time + TICK_TIME, n, new TickEvent());
    } else if (e.what instanceof Delivery d) {
      apply(n, cores[n].step(new CrsmInput.Receive(d.from, d.message)));
    } else if (e.what instanceof PersistComplete p) {
      recordDurable(n, p.record);
      apply(n, cores[n].step(new CrsmInput.PersistDone(p.persistId)));
    }
    apply(n, cores[n].step(new CrsmInput.Flush()));
  }

  private void submitClientCommand() {
    int n = clients.nextInt(NODES);
    if (crashed[n]) {
      return;
    }
    long keyIndex = clients.nextInt(4);
    byte[] key = ("k" + keyIndex).getBytes(StandardCharsets.US_ASCII);
    byte[] value = ("v" + nextRequestId).getBytes(StandardCharsets.US_ASCII);
    Version known = lastVersionByKey.getOrDefault(keyIndex, new Version(1, 0));
    Command c =
        switch (clients.nextInt(6)) {
          case 0 -> new Command.Create(key, value);
          case 1, 2 -> new Command.Cas(key, known, value);
          case 3 -> new Command.Delete(key, known);
          case 4 -> new Command.Fence(key);
          default -> new Command.Get(key);
        };
    long requestId = nextRequestId++;
    apply(n, cores[n].step(new CrsmInput.ClientRequest(requestId, c)));
    apply(n, cores[n].step(new CrsmInput.Flush()));
  }

  private void apply(int n, List<CrsmEffect> effects) {
    for (CrsmEffect e : effects) {
      if (e instanceof CrsmEffect.Send s) {
        checkDurableBeforeSend(n, s.message());
        send(n, s.to(), s.message());
      } else if (e instanceof CrsmEffect.Persist p) {
        schedule(time + 1 + disks.nextInt(8), n, new PersistComplete(p.persistId(), p.record()));
      } else if (e instanceof CrsmEffect.Executed x) {
        onExecuted(n, x);
      } else if (e instanceof CrsmEffect.Reply r) {
        answered++;
        if (time > crashTime) {
          answeredAfterCrash++;
        }
        learnVersion(r.result());
        trace = trace * 31 + r.requestId() * 7 + r.result().getClass().getSimpleName().hashCode();
      }
    }
  }

  private void learnVersion(Result r) {
    // Feed later CASes versions that exist, so some succeed. Key-agnostic on purpose: mismatches
    // are fine too.
    if (r instanceof Result.Written w) {
      lastVersionByKey.put((long) clients.nextInt(4), w.version());
    }
  }

  private void send(int from, int to, CrsmMessage m) {
    if (from == to) {
      schedule(time, to, new Delivery(from, m)); // local delivery: never lost
      return;
    }
    if (network.nextDouble() < faults.drop) {
      return;
    }
    schedule(time + 1 + network.nextInt(faults.maxDelay), to, new Delivery(from, m));
    if (network.nextDouble() < faults.duplicate) {
      schedule(time + 1 + network.nextInt(faults.maxDelay), to, new Delivery(from, m));
    }
  }

  private void schedule(long at, int node, Object what) {
    events.add(new Event(at, seq++, node, what));
  }

  private void recordDurable(int n, CrsmEffect.LogRecord record) {
    if (record instanceof CrsmEffect.PromiseRecord p) {
      durablePromise[n] = Ballot.max(durablePromise[n], p.ballot());
    } else if (record instanceof CrsmEffect.AcceptRecord a) {
      durableAccepts.get(n).add(a.slot() + "@" + a.ballot());
      durablePromise[n] = Ballot.max(durablePromise[n], a.ballot());
    }
  }

  private void checkDurableBeforeSend(int n, CrsmMessage m) {
    if (m instanceof CrsmMessage.Promise p && durablePromise[n].compareTo(p.ballot()) < 0) {
      violations.add("node " + n + " promised " + p.ballot() + " before it was durable");
    }
    if (m instanceof CrsmMessage.Accepted a
        && !durableAccepts.get(n).contains(a.slot() + "@" + a.ballot())
        && a.slot() > lastExecuted[n]) {
      violations.add("node " + n + " acked slot " + a.slot() + " before it was durable");
    }
  }

  private void onExecuted(int n, CrsmEffect.Executed x) {
    if (x.slot() != lastExecuted[n] + 1) {
      violations.add("node " + n + " executed slot " + x.slot() + " after " + lastExecuted[n]);
    }
    lastExecuted[n] = x.slot();
    executed.get(n).put(x.slot(), x.batch());
    for (int other = 0; other < NODES; other++) {
      List<ClientCommand> theirs = executed.get(other).get(x.slot());
      if (other != n && theirs != null && !ids(theirs).equals(ids(x.batch()))) {
        violations.add(
            "slot "
                + x.slot()
                + " executed as "
                + ids(x.batch())
                + " on node "
                + n
                + " but as "
                + ids(theirs)
                + " on node "
                + other);
      }
    }
    trace = trace * 31 + x.slot() * 131 + ids(x.batch()).hashCode();
  }

  private static List<Long> ids(List<ClientCommand> batch) {
    List<Long> out = new ArrayList<>(batch.size());
    for (ClientCommand c : batch) {
      out.add(c.origin() * 1_000_000_007L + c.requestId());
    }
    return out;
  }

  /** Violations found; empty when every safety property held. */
  List<String> check() {
    return violations;
  }

  long seed() {
    return seed;
  }

  long executedBy(int node) {
    return lastExecuted[node] + 1;
  }

  boolean crashed(int node) {
    return crashed[node];
  }

  long answered() {
    return answered;
  }

  long answeredAfterCrash() {
    return answeredAfterCrash;
  }

  /** A hash of every execution and reply in order: equal for equal seeds. */
  long traceHash() {
    return trace;
  }
}
