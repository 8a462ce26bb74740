package io.frsm.bench.crsm;

import io.frsm.bench.crsm.CrsmMessage.Accept;
import io.frsm.bench.crsm.CrsmMessage.Accepted;
import io.frsm.bench.crsm.CrsmMessage.Fetch;
import io.frsm.bench.crsm.CrsmMessage.Heartbeat;
import io.frsm.bench.crsm.CrsmMessage.HeartbeatAck;
import io.frsm.bench.crsm.CrsmMessage.Learn;
import io.frsm.bench.crsm.CrsmMessage.Prepare;
import io.frsm.bench.crsm.CrsmMessage.Promise;
import io.frsm.bench.crsm.CrsmMessage.Reject;
import io.frsm.bench.crsm.CrsmMessage.SlotValue;
import io.frsm.cell.Ballot;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.random.RandomGenerator;

/**
 * One replica of one shard of the coarse-grained baseline (NSDI '20 §2.2): Multi-Paxos over an
 * operation log executed strictly in slot order, as a pure state machine ({@link #step}: input in,
 * ordered effects out; no threads, clocks or I/O; time as ticks, randomness injected).
 *
 * <p>Roles. A candidate runs phase 1 once for every slot from its execution point on, adopts in
 * each slot the value known chosen or else accepted under the highest ballot among a quorum of
 * promises, fills holes with no-ops, and re-proposes them all under its ballot. As leader it then
 * runs only phase 2: per slot one Accept to every replica (itself included), chosen at a quorum of
 * durable acks. Every replica executes chosen slots in order against its {@link KvStateMachine};
 * the leader answers the clients of a slot once it executed it (so a CAS learns its outcome after
 * every earlier slot). Followers learn the commit point from Accepts and heartbeats and fetch
 * chosen slots they lack from the leader.
 *
 * <p>Batching. Client commands queue at the leader; on each {@link CrsmInput.Flush} (the end of the
 * driver's event-loop turn) it proposes queued commands, up to {@code maxBatch} per slot, while
 * fewer than {@code maxSlotsInFlight} slots await their quorum. Batches therefore grow with load.
 *
 * <p>Durability. Promises and accepts are persisted before the reply that depends on them. What is
 * chosen is not persisted (it can be re-learned), and the executed state machine lives in memory: a
 * replica that crashed does not rejoin (that would need snapshots, which this baseline lacks).
 * Slots every replica executed are dropped from memory (they stay in the durable log); a crashed
 * replica therefore stops that trimming.
 *
 * <p>Not thread-safe: one input at a time.
 */
public final class CrsmShardCore {
  private enum Role {
    FOLLOWER,
    CANDIDATE,
    LEADER
  }

  /** What this acceptor accepted at one slot; {@code durable} once its persist completed. */
  private static final class AcceptedSlot {
    final Ballot ballot;
    final List<ClientCommand> batch;
    boolean durable;

    AcceptedSlot(Ballot ballot, List<ClientCommand> batch) {
      this.ballot = ballot;
      this.batch = batch;
    }
  }

  /** A slot this leader proposed and has not yet seen chosen. */
  private static final class Proposal {
    final List<ClientCommand> batch;
    int ackedBy; // bit per replica
    long lastSentTick;

    Proposal(List<ClientCommand> batch) {
      this.batch = batch;
    }
  }

  /** A reply held until its persist is durable. */
  private record PendingReply(int to, CrsmMessage message) {}

  private final int nodeId;
  private final int boot;
  private final CrsmConfig config;
  private final RandomGenerator random;
  private final KvStateMachine state = new KvStateMachine();

  // Acceptor.
  private Ballot promised = Ballot.NONE;
  private final TreeMap<Long, AcceptedSlot> accepted = new TreeMap<>();
  private final Map<Long, PendingReply> pendingPersists = new HashMap<>();
  private long nextPersistId;

  // Learner: chosen values not yet trimmed, executed or not.
  private final TreeMap<Long, List<ClientCommand>> chosen = new TreeMap<>();
  private long executedThrough = -1;
  private long knownChosenThrough = -1;
  private long trimThrough = -1;
  private long lastFetchTick = Long.MIN_VALUE / 2;

  // Roles and time.
  private Role role = Role.FOLLOWER;
  private Ballot ownBallot = Ballot.NONE;
  private Ballot followedBallot = Ballot.NONE;
  private long maxRoundSeen;
  private long now;
  private long lastLeaderContactTick;
  private long electionJitterTicks;

  // Candidate.
  private long prepareFromSlot;
  private final Map<Integer, Promise> promises = new HashMap<>();
  private long campaignStartTick;
  private long lastPrepareSentTick;

  // Leader.
  private final TreeMap<Long, Proposal> proposals = new TreeMap<>();
  private final ArrayDeque<ClientCommand> queue = new ArrayDeque<>();
  private final Set<Long> proposedRequests = new HashSet<>();
  private final long[] peerExecuted;
  private long nextSlot;
  private long recoveredThrough = -1;
  private long lastHeartbeatTick;

  /**
   * @param nodeId this replica, in {@code [0, config.nodeCount())}
   * @param boot this process incarnation, so no ballot of an earlier one is reused
   */
  public CrsmShardCore(int nodeId, int boot, CrsmConfig config, RandomGenerator random) {
    this.config = Objects.requireNonNull(config);
    this.random = Objects.requireNonNull(random);
    if (nodeId < 0 || nodeId >= config.nodeCount() || boot < 0) {
      throw new IllegalArgumentException("bad nodeId " + nodeId + " or boot " + boot);
    }
    this.nodeId = nodeId;
    this.boot = boot;
    this.peerExecuted = new long[config.nodeCount()];
    resetElectionTimer();
  }

  public List<CrsmEffect> step(CrsmInput input) {
    List<CrsmEffect> out = new ArrayList<>();
    if (input instanceof CrsmInput.ClientRequest request) {
      onClientRequest(request, out);
    } else if (input instanceof CrsmInput.Receive receive) {
      receive(receive.from(), receive.message(), out);
    } else if (input instanceof CrsmInput.PersistDone done) {
      PendingReply reply = pendingPersists.remove(done.persistId());
      if (reply == null) {
        throw new IllegalArgumentException("unknown persist id " + done.persistId());
      }
      onPersisted(reply, out);
    } else if (input instanceof CrsmInput.Tick) {
      onTick(out);
    } else if (input instanceof CrsmInput.Flush) {
      proposeQueued(out);
    } else if (input instanceof CrsmInput.Campaign) {
      if (role != Role.LEADER) {
        campaign(out);
      }
    }
    return out;
  }

  public boolean isLeader() {
    return role == Role.LEADER;
  }

  public long executedThrough() {
    return executedThrough;
  }

  /** Slots (chosen or accepted) held in memory: bounded when every replica keeps executing. */
  public int slotsInMemory() {
    return Math.max(accepted.size(), chosen.size());
  }

  // ---------------------------------------------------------------- clients

  private void onClientRequest(CrsmInput.ClientRequest request, List<CrsmEffect> out) {
    if (role != Role.LEADER) {
      out.add(new CrsmEffect.Reply(request.requestId(), new Result.NotLeader()));
      return;
    }
    Command command = request.command();
    if (command instanceof Command.Get get
        && config.readMode() == ReadMode.LEADER
        && executedThrough >= recoveredThrough) {
      // Every write this leader acknowledged is executed here, and (stable leadership) no other
      // replica executes writes this one has not sequenced: the local state is linearizable.
      out.add(new CrsmEffect.Reply(request.requestId(), state.read(get.key())));
      return;
    }
    queue.add(new ClientCommand(nodeId, request.requestId(), command));
  }

  private void proposeQueued(List<CrsmEffect> out) {
    if (role != Role.LEADER) {
      return;
    }
    while (!queue.isEmpty() && proposals.size() < config.maxSlotsInFlight()) {
      int size = Math.min(queue.size(), config.maxBatch());
      List<ClientCommand> batch = new ArrayList<>(size);
      for (int i = 0; i < size; i++) {
        ClientCommand c = queue.poll();
        batch.add(c);
        proposedRequests.add(c.requestId());
      }
      long slot = nextSlot++;
      propose(slot, List.copyOf(batch), out);
      out.add(new CrsmEffect.Proposed(slot, size));
    }
  }

  private void propose(long slot, List<ClientCommand> batch, List<CrsmEffect> out) {
    Proposal p = new Proposal(batch);
    proposals.put(slot, p);
    sendAccept(slot, p, out);
  }

  private void sendAccept(long slot, Proposal p, List<CrsmEffect> out) {
    p.lastSentTick = now;
    for (int to = 0; to < config.nodeCount(); to++) {
      if ((p.ackedBy & (1 << to)) == 0) {
        out.add(
            new CrsmEffect.Send(
                to, new Accept(ownBallot, slot, p.batch, executedThrough, trimThrough)));
      }
    }
  }

  // ---------------------------------------------------------------- messages

  private void receive(int from, CrsmMessage message, List<CrsmEffect> out) {
    observe(message.ballot());
    if (message instanceof Prepare m) {
      onPrepare(from, m, out);
    } else if (message instanceof Promise m) {
      onPromise(from, m, out);
    } else if (message instanceof Accept m) {
      onAccept(from, m, out);
    } else if (message instanceof Accepted m) {
      onAccepted(from, m, out);
    } else if (message instanceof Reject m) {
      observe(m.promised());
      if (role != Role.FOLLOWER && m.ballot().equals(ownBallot)) {
        stepDown(out);
      }
    } else if (message instanceof Heartbeat m) {
      onHeartbeat(from, m, out);
    } else if (message instanceof HeartbeatAck m) {
      if (role == Role.LEADER && m.ballot().equals(ownBallot)) {
        peerExecuted[from] = Math.max(peerExecuted[from], m.executedThrough());
        updateTrim();
      }
    } else if (message instanceof Fetch m) {
      onFetch(from, m, out);
    } else if (message instanceof Learn m) {
      if (m.slot() > executedThrough && m.slot() > trimThrough) {
        chosen.put(m.slot(), m.batch());
        executeChosen(out);
      }
    }
  }

  private void onPrepare(int from, Prepare m, List<CrsmEffect> out) {
    if (m.ballot().compareTo(promised) < 0) {
      out.add(new CrsmEffect.Send(from, new Reject(m.ballot(), promised)));
      return;
    }
    promised = m.ballot();
    if (role != Role.FOLLOWER && !m.ballot().equals(ownBallot)) {
      stepDown(out);
    }
    lastLeaderContactTick = now; // a campaign is under way: give it time before starting another
    persist(
        new CrsmEffect.PromiseRecord(m.ballot()),
        new PendingReply(from, new Prepare(m.ballot(), m.fromSlot())),
        out);
  }

  private void onPersisted(PendingReply reply, List<CrsmEffect> out) {
    if (reply.message() instanceof Prepare p) {
      // The promise is durable. Report everything from fromSlot on as it stands now (values
      // accepted since the promise was made are reported too: more information is still safe).
      out.add(new CrsmEffect.Send(reply.to(), new Promise(p.ballot(), slotsFrom(p.fromSlot()))));
    } else if (reply.message() instanceof Accepted a) {
      AcceptedSlot slot = accepted.get(a.slot());
      if (slot != null && slot.ballot.equals(a.ballot())) {
        slot.durable = true;
        out.add(
            new CrsmEffect.Send(reply.to(), new Accepted(a.ballot(), a.slot(), executedThrough)));
      }
    }
  }

  private List<SlotValue> slotsFrom(long fromSlot) {
    List<SlotValue> out = new ArrayList<>();
    for (Map.Entry<Long, List<ClientCommand>> e : chosen.tailMap(fromSlot, true).entrySet()) {
      out.add(new SlotValue(e.getKey(), Ballot.NONE, e.getValue(), true));
    }
    for (Map.Entry<Long, AcceptedSlot> e : accepted.tailMap(fromSlot, true).entrySet()) {
      if (!chosen.containsKey(e.getKey())) {
        out.add(new SlotValue(e.getKey(), e.getValue().ballot, e.getValue().batch, false));
      }
    }
    return out;
  }

  private void onAccept(int from, Accept m, List<CrsmEffect> out) {
    if (m.ballot().compareTo(promised) < 0) {
      out.add(new CrsmEffect.Send(from, new Reject(m.ballot(), promised)));
      return;
    }
    promised = m.ballot(); // durable with the accept record below, before any dependent reply
    boolean ownProposal = role == Role.LEADER && m.ballot().equals(ownBallot);
    if (role != Role.FOLLOWER && !m.ballot().equals(ownBallot)) {
      stepDown(out);
    }
    if (m.slot() <= trimThrough) {
      // Every replica executed this slot: it is chosen, and this is its value.
      out.add(new CrsmEffect.Send(from, new Accepted(m.ballot(), m.slot(), executedThrough)));
    } else {
      AcceptedSlot existing = accepted.get(m.slot());
      if (existing != null && existing.ballot.equals(m.ballot())) {
        if (existing.durable) { // a retransmission: the ack was lost
          out.add(new CrsmEffect.Send(from, new Accepted(m.ballot(), m.slot(), executedThrough)));
        } // else the ack leaves when the pending persist completes
      } else {
        accepted.put(m.slot(), new AcceptedSlot(m.ballot(), m.batch()));
        persist(
            new CrsmEffect.AcceptRecord(m.slot(), m.ballot(), m.batch()),
            new PendingReply(from, new Accepted(m.ballot(), m.slot(), -1)),
            out);
      }
    }
    if (!ownProposal) {
      followLeader(from, m.ballot(), m.chosenThrough(), m.trimThrough(), out);
    }
  }

  private void onHeartbeat(int from, Heartbeat m, List<CrsmEffect> out) {
    if (m.ballot().compareTo(promised) < 0) {
      out.add(new CrsmEffect.Send(from, new Reject(m.ballot(), promised)));
      return;
    }
    if (role != Role.FOLLOWER && !m.ballot().equals(ownBallot)) {
      stepDown(out);
    }
    followLeader(from, m.ballot(), m.chosenThrough(), m.trimThrough(), out);
    out.add(new CrsmEffect.Send(from, new HeartbeatAck(m.ballot(), executedThrough)));
  }

  /**
   * A leader at {@code ballot} says every slot up to {@code chosenThrough} is chosen. A slot this
   * replica accepted under that same ballot holds the chosen value (a leader proposes one value per
   * slot); any other slot is fetched from the leader.
   */
  private void followLeader(
      int leader, Ballot ballot, long chosenThrough, long trimPoint, List<CrsmEffect> out) {
    lastLeaderContactTick = now;
    followedBallot = ballot;
    knownChosenThrough = Math.max(knownChosenThrough, chosenThrough);
    for (long s = executedThrough + 1; s <= chosenThrough; s++) {
      if (chosen.containsKey(s)) {
        continue;
      }
      AcceptedSlot a = accepted.get(s);
      if (a == null || !a.ballot.equals(ballot)) {
        break;
      }
      chosen.put(s, a.batch);
    }
    executeChosen(out);
    if (executedThrough < knownChosenThrough) {
      maybeFetch(leader, out);
    }
    trim(Math.min(trimPoint, executedThrough));
  }

  private void maybeFetch(int leader, List<CrsmEffect> out) {
    if (now - lastFetchTick >= config.retransmitTicks()) {
      lastFetchTick = now;
      out.add(new CrsmEffect.Send(leader, new Fetch(followedBallot, executedThrough + 1)));
    }
  }

  private void onFetch(int from, Fetch m, List<CrsmEffect> out) {
    if (role != Role.LEADER || !m.ballot().equals(ownBallot)) {
      return;
    }
    long last = Math.min(executedThrough, m.fromSlot() + config.fetchMaxSlots() - 1);
    for (long s = Math.max(m.fromSlot(), trimThrough + 1); s <= last; s++) {
      List<ClientCommand> batch = chosen.get(s);
      if (batch != null) {
        out.add(new CrsmEffect.Send(from, new Learn(ownBallot, s, batch)));
      }
    }
  }

  private void onAccepted(int from, Accepted m, List<CrsmEffect> out) {
    if (role != Role.LEADER || !m.ballot().equals(ownBallot)) {
      return;
    }
    peerExecuted[from] = Math.max(peerExecuted[from], m.executedThrough());
    Proposal p = proposals.get(m.slot());
    if (p != null) {
      p.ackedBy |= 1 << from;
      if (Integer.bitCount(p.ackedBy) >= config.quorum()) {
        proposals.remove(m.slot());
        chosen.put(m.slot(), p.batch);
        executeChosen(out);
      }
    }
    updateTrim();
  }

  // ---------------------------------------------------------------- execution and trimming

  private void executeChosen(List<CrsmEffect> out) {
    List<ClientCommand> batch;
    while ((batch = chosen.get(executedThrough + 1)) != null) {
      long slot = ++executedThrough;
      for (ClientCommand c : batch) {
        Result result = state.execute(slot, c.command());
        if (c.origin() == nodeId && proposedRequests.remove(c.requestId())) {
          out.add(new CrsmEffect.Reply(c.requestId(), result));
        }
      }
      out.add(new CrsmEffect.Executed(slot, batch));
    }
    knownChosenThrough = Math.max(knownChosenThrough, executedThrough);
  }

  private void updateTrim() {
    peerExecuted[nodeId] = executedThrough;
    long min = Long.MAX_VALUE;
    for (long e : peerExecuted) {
      min = Math.min(min, e);
    }
    trim(min);
  }

  private void trim(long through) {
    if (through > trimThrough) {
      trimThrough = through;
      accepted.headMap(through, true).clear();
      chosen.headMap(through, true).clear();
    }
  }

  // ---------------------------------------------------------------- leadership

  private void onTick(List<CrsmEffect> out) {
    now++;
    switch (role) {
      case LEADER -> {
        if (now - lastHeartbeatTick >= config.heartbeatTicks()) {
          lastHeartbeatTick = now;
          for (int to = 0; to < config.nodeCount(); to++) {
            if (to != nodeId) {
              out.add(
                  new CrsmEffect.Send(to, new Heartbeat(ownBallot, executedThrough, trimThrough)));
            }
          }
        }
        for (Map.Entry<Long, Proposal> e : proposals.entrySet()) {
          if (now - e.getValue().lastSentTick >= config.retransmitTicks()) {
            sendAccept(e.getKey(), e.getValue(), out);
          }
        }
      }
      case CANDIDATE -> {
        if (config.electionTimeoutTicks() > 0
            && now - campaignStartTick >= config.electionTimeoutTicks() + electionJitterTicks) {
          campaign(out); // split vote or lost messages: try again with a higher ballot
        } else if (now - lastPrepareSentTick >= config.retransmitTicks()) {
          lastPrepareSentTick = now;
          for (int to = 0; to < config.nodeCount(); to++) {
            if (!promises.containsKey(to)) {
              out.add(new CrsmEffect.Send(to, new Prepare(ownBallot, prepareFromSlot)));
            }
          }
        }
      }
      case FOLLOWER -> {
        if (config.electionTimeoutTicks() > 0
            && now - lastLeaderContactTick >= config.electionTimeoutTicks() + electionJitterTicks) {
          campaign(out);
        } else if (executedThrough < knownChosenThrough && !followedBallot.isNone()) {
          maybeFetch(followedBallot.nodeId(), out);
        }
      }
    }
  }

  private void campaign(List<CrsmEffect> out) {
    role = Role.CANDIDATE;
    maxRoundSeen = Math.max(maxRoundSeen, promised.round()) + 1;
    ownBallot = new Ballot(maxRoundSeen, nodeId, boot);
    prepareFromSlot = executedThrough + 1;
    promises.clear();
    campaignStartTick = now;
    lastPrepareSentTick = now;
    resetElectionTimer();
    for (int to = 0; to < config.nodeCount(); to++) {
      out.add(new CrsmEffect.Send(to, new Prepare(ownBallot, prepareFromSlot)));
    }
  }

  private void onPromise(int from, Promise m, List<CrsmEffect> out) {
    if (role != Role.CANDIDATE || !m.ballot().equals(ownBallot)) {
      return;
    }
    promises.put(from, m);
    if (promises.size() >= config.quorum()) {
      becomeLeader(out);
    }
  }

  /**
   * Phase 1 is complete for every slot from {@code prepareFromSlot} on. Adopt per slot the value
   * known chosen, else the one accepted under the highest ballot, else a no-op, and re-propose each
   * under the own ballot: whatever was chosen before stays chosen.
   */
  private void becomeLeader(List<CrsmEffect> out) {
    TreeMap<Long, SlotValue> adopted = new TreeMap<>();
    for (Promise promise : promises.values()) {
      for (SlotValue v : promise.entries()) {
        SlotValue current = adopted.get(v.slot());
        if (current == null
            || (!current.chosen() && (v.chosen() || v.ballot().compareTo(current.ballot()) > 0))) {
          adopted.put(v.slot(), v);
        }
      }
    }
    role = Role.LEADER;
    promises.clear();
    proposals.clear();
    Arrays.fill(peerExecuted, -1);
    long lastSlot = Math.max(executedThrough, adopted.isEmpty() ? -1 : adopted.lastKey());
    for (long s = executedThrough + 1; s <= lastSlot; s++) {
      List<ClientCommand> known = chosen.get(s);
      SlotValue v = adopted.get(s);
      propose(s, known != null ? known : v != null ? v.batch() : List.of(), out);
    }
    recoveredThrough = lastSlot;
    nextSlot = lastSlot + 1;
    lastHeartbeatTick = now;
    out.add(new CrsmEffect.LeadershipChanged(true, ownBallot));
  }

  private void stepDown(List<CrsmEffect> out) {
    if (role == Role.LEADER) {
      for (ClientCommand c : queue) {
        out.add(new CrsmEffect.Reply(c.requestId(), new Result.NotLeader()));
      }
      for (Long requestId : proposedRequests) {
        out.add(new CrsmEffect.Reply(requestId, new Result.LeadershipLost()));
      }
      queue.clear();
      proposedRequests.clear();
      proposals.clear();
      out.add(new CrsmEffect.LeadershipChanged(false, ownBallot));
    }
    role = Role.FOLLOWER;
    promises.clear();
    lastLeaderContactTick = now;
    resetElectionTimer();
  }

  private void resetElectionTimer() {
    int timeout = config.electionTimeoutTicks();
    electionJitterTicks = timeout == 0 ? 0 : random.nextInt(timeout + 1);
  }

  private void observe(Ballot ballot) {
    maxRoundSeen = Math.max(maxRoundSeen, ballot.round());
  }

  private void persist(CrsmEffect.LogRecord record, PendingReply reply, List<CrsmEffect> out) {
    long id = nextPersistId++;
    pendingPersists.put(id, reply);
    out.add(new CrsmEffect.Persist(id, record));
  }
}
