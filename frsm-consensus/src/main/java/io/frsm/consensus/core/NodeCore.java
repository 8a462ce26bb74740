package io.frsm.consensus.core;

import io.frsm.cell.Cell;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One node's per-key Paxos as a pure, deterministic state machine: {@link #step} takes an input and
 * returns the effects to carry out, in order (etcd-raft style). No threads, clocks, I/O or
 * randomness inside: time comes with each input, randomness from the injected {@link RandomSource},
 * durable state through the synchronous {@link CellStore} read seam.
 *
 * <p>The driver must: carry out effects in order; feed {@link Input.PersistDone} once a {@link
 * Effect.Persist} is durable (never before); deliver {@link Effect.Send}s to this node back as
 * {@link Input.Receive}; tick regularly (timeouts are only noticed on inputs). After a crash it
 * builds a new core with a higher {@code boot} (persisted before the node serves), so no ballot of
 * the old incarnation is reused.
 *
 * <p>Not thread-safe: one input at a time.
 */
public final class NodeCore {
  private final Acceptor acceptor;
  private final Coordinator coordinator;
  private final Map<Long, Cell> chosenPersists = new HashMap<>();
  private long lastMonoNanos = Long.MIN_VALUE;

  public NodeCore(int nodeId, int boot, CoreConfig config, CellStore store, RandomSource random) {
    if (nodeId < 0 || boot < 0) {
      throw new IllegalArgumentException("nodeId and boot must be >= 0");
    }
    Objects.requireNonNull(config);
    Objects.requireNonNull(store);
    Objects.requireNonNull(random);
    this.acceptor = new Acceptor(store, config);
    this.coordinator = new Coordinator(nodeId, boot, config, store, random);
  }

  public List<Effect> step(Now now, Input input) {
    if (now.monoNanos() < lastMonoNanos) {
      throw new IllegalArgumentException(
          "monotonic time went backwards: " + now.monoNanos() + " < " + lastMonoNanos);
    }
    lastMonoNanos = now.monoNanos();
    List<Effect> out = new ArrayList<>();
    LeaseState leases = coordinator.leases;
    if (input instanceof Input.ClientRequest request) {
      if (RangeTerm.isReserved(request.operation().key())) {
        throw new IllegalArgumentException("reserved key: " + request.operation().key());
      }
      if (request.requestId() < 0) {
        throw new IllegalArgumentException(
            "client request ids are >= 0 (negative ones are the core's own): "
                + request.requestId());
      }
      coordinator.submit(now, request, out);
    } else if (input instanceof Input.Receive receive) {
      if (receive.message() instanceof Message.Reply reply) {
        if (RangeTerm.isReserved(reply.key())) {
          leases.onTermReply(now, receive.from(), reply, out);
        } else {
          coordinator.onReply(now, receive.from(), reply, out);
        }
      } else {
        acceptor.receive(now, receive.from(), receive.message(), out);
      }
    } else if (input instanceof Input.Tick) {
      leases.tick(now, out);
      coordinator.tick(now, out);
    } else if (input instanceof Input.PersistDone done) {
      if (!acceptor.persistDone(now, done.persistId(), out)) {
        throw new IllegalArgumentException("unknown persist id " + done.persistId());
      }
      Cell chosen = chosenPersists.remove(done.persistId());
      if (chosen != null) {
        coordinator.leaderReads.localDurable(chosen.key(), chosen.accepted());
        coordinator.localCaughtUp(now, chosen.key(), out);
      }
    } else if (input instanceof Input.TermGranted granted) {
      leases.granted(now, granted, out);
    } else if (input instanceof Input.LeaseRenewed renewed) {
      leases.renewed(now, renewed);
    } else if (input instanceof Input.LeaseLost lost) {
      leases.lost(now, lost);
    } else if (input instanceof Input.ReleaseLease release) {
      leases.release(now, release, out);
    } else if (input instanceof Input.Candidacy candidacy) {
      leases.candidacy(candidacy);
    }
    if (leases.enabled()) {
      takeScanReplies(now, leases, out);
      watchChosenPersists(out);
      coordinator.leaderReads.endOfStep();
      leases.publish();
    }
    return out;
  }

  /**
   * Lets a reader outside the core's thread serve the leader-only reads this core would serve: the
   * core tells {@code gate} which keys are unsettled and until when each range is servable
   * (docs/PROTOCOL.md "Leader-only reads on the caller's thread"). Call before the first step.
   * Returns false, and tells the gate nothing, when this core serves no leader-only reads (leases
   * off, leader-only reads off, or a sabotage of the lease check in tests).
   */
  public boolean publishReadsTo(ReadGate gate) {
    if (!coordinator.leases.enabled() || !coordinator.leaderReads.enabledOutsideCore()) {
      return false;
    }
    if (lastMonoNanos != Long.MIN_VALUE) {
      throw new IllegalStateException("publishReadsTo must be called before the first step");
    }
    coordinator.leaderReads.publishTo(gate);
    coordinator.leases.publishTo(gate);
    return true;
  }

  /**
   * Answers of the core's own scan reads (negative request ids) go to the scan, not the driver; the
   * scan may start more reads, whose answers may come at once, hence the loop.
   */
  private static void takeScanReplies(Now now, LeaseState leases, List<Effect> out) {
    for (int i = 0; i < out.size(); i++) {
      if (out.get(i) instanceof Effect.Reply reply && reply.requestId() < 0) {
        out.remove(i--);
        leases.scanReadDone(now, reply.requestId(), reply.outcome(), out);
      }
    }
  }

  /**
   * Remembers the persists that write a chosen value, so that leader-only reads learn when the
   * local cell caught up with a value this node learned was chosen ({@link LeaderReads}).
   */
  private void watchChosenPersists(List<Effect> out) {
    for (Effect e : out) {
      if (e instanceof Effect.Persist p
          && p.delta().accepted() != null
          && p.delta().accepted().chosen()) {
        chosenPersists.put(p.persistId(), p.delta());
      }
    }
  }

  /** Leader-only reads served so far (diagnostics and tests). */
  public long leaderOnlyReads() {
    return coordinator.leaderReads.served();
  }

  /**
   * Range scans this core completed (each puts a range in leader-only mode for its term; lease
   * holders only; diagnostics and tests).
   */
  public long rangeScansCompleted() {
    return coordinator.leases.scansCompleted();
  }

  /** The operation counters so far (a copy: cheap, but not free; publish it, do not poll it). */
  public CoreStats stats() {
    return coordinator.counters.snapshot();
  }

  /** Keys with a client operation queued or running. */
  public int activeOperations() {
    return coordinator.activeOperations();
  }

  /** Keys whose acceptor waits for a persist. */
  public int keysAwaitingPersist() {
    return acceptor.busyKeys();
  }
}
