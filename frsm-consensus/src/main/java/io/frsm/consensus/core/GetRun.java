package io.frsm.consensus.core;

import io.frsm.lsm.cell.AcceptedValue;
import io.frsm.lsm.cell.Ballot;
import java.util.List;
import java.util.Optional;

/**
 * Linearizable read (DESIGN.md "Quorum read", "Mutating quorum read"; paper Algorithm 1). Reads
 * clocks from all {@code n}; answers without writing iff the largest accepted part M is chosen and
 * either {@code q} replies show this node's own current ballot as their promise or all {@code n}
 * replied. Otherwise a mutating quorum read: prepare, then quench live M at {@code (e, t+1)}, or
 * settle a delete and answer absent.
 */
final class GetRun extends Run {
  GetRun(Coordinator coordinator, Input.ClientRequest request) {
    super(coordinator, request);
  }

  @Override
  void start(Now now, List<Effect> out) {
    Outcome local = coordinator.leaderReads.tryServe(now, key);
    if (local != null) {
      servedLocally = true;
      finish(local, out); // leader-only read: 0 messages
    } else {
      read(now, out);
    }
  }

  @Override
  void onReadProgress(Now now, Round read, List<Effect> out) {
    AcceptedValue m = null;
    for (Message.Reply r : read.replies.values()) {
      AcceptedValue a = ((Message.ReadReply) r).accepted();
      if (a != null && (m == null || a.compareTo(m) > 0)) {
        m = a;
      }
    }
    int sameTriple = 0;
    boolean markedChosen = false;
    Message.ReadReply own = (Message.ReadReply) read.replies.get(coordinator.nodeId);
    Ballot ownBallot =
        own != null
                && own.promised().nodeId() == coordinator.nodeId
                && own.promised().boot() == coordinator.boot
            ? own.promised()
            : Ballot.NONE;
    int promisedToUs = 0;
    for (Message.Reply r : read.replies.values()) {
      Message.ReadReply rr = (Message.ReadReply) r;
      AcceptedValue a = rr.accepted();
      if (m == null ? a == null : a != null && a.sameTriple(m)) {
        sameTriple++;
      }
      markedChosen |= m != null && a != null && a.sameInstance(m) && a.chosen();
      if (!ownBallot.isNone() && rr.promised().equals(ownBallot)) {
        promisedToUs++;
      }
    }
    boolean chosen = sameTriple >= quorum || markedChosen;
    boolean allReplied = read.replies.size() == replicas.size();
    if (chosen && (promisedToUs >= quorum || allReplied)) {
      AcceptedValue local = own == null ? null : own.accepted();
      boolean localKnows = local != null && local.chosen() && m != null && local.sameTriple(m);
      if (m != null && !localKnows && replicas.contains(coordinator.nodeId)) {
        // Merge the answer locally as chosen, so the next operation on the key can start warm.
        // (Only on a replica: a node outside the key's replica set never stores the key.)
        out.add(new Effect.Send(coordinator.nodeId, new Message.Commit(key, m.withChosen(true))));
        coordinator.leaderReads.learnedChosen(key, m.withChosen(true), false);
      }
      finish(new Outcome.ReadResult(Run.visible(m)), out);
    } else if (allReplied) {
      prepare(now, out);
    }
  }

  @Override
  void onReadTimeout(Now now, Round read, List<Effect> out) {
    prepare(now, out);
  }

  @Override
  void decide(Now now, AcceptedValue m, boolean mChosen, List<Effect> out) {
    if (OwnQuench.settle(this, now, m, out)) {
      return;
    }
    if (m == null) {
      finish(new Outcome.ReadResult(Optional.empty()), out);
    } else if (!m.isDelete()) {
      FenceRun.Quench.liveValue(this, now, m, mChosen, out);
    } else if (mChosen) {
      finish(new Outcome.ReadResult(Optional.empty()), out);
    } else {
      Outcome absent = new Outcome.ReadResult(Optional.empty());
      accept(now, recommit(m), false, promisers(), absent, out);
    }
  }
}
