package io.frsm.consensus.core;

import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Key;
import io.frsm.cell.PurgeMark;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Delete beyond the client's answer (docs/DESIGN.md "Delete", paper appendix A.2). A delete
 * succeeds once {@code q} replicas durably accepted its marker; <b>phase 1</b> ends only when every
 * replica of the key's set has durably acked a delete at that instance. Until then the cell stays
 * as it is (the paper's DeletedCellTombstoned state is this default). Then <b>phase 2</b>: {@link
 * Message.Purge} to every replica, which records the purge mark {@code (epoch, timestamp,
 * markTimeMs)} in its cell (merge: max). Compaction may later drop a key only under that mark.
 *
 * <p>Late {@link Message.Accepted} replies of the delete's own accept round count as acks. Every
 * {@code roundTimeoutNanos} the replicas still missing get the chosen delete again ({@link
 * Message.Commit}, a blind merge) followed by a {@link Message.Read}; a {@link Message.ReadReply}
 * showing the delete at its instance is an ack (replies describe durable state). A reply showing a
 * newer instance ends the completion without a purge: the key was re-created or fenced, so the
 * delete is no longer the newest state and a mark naming it could never let compaction drop
 * anything.
 *
 * <p>A purge is unanswered, so a lost one cannot be seen: each is sent again {@link #PURGE_RESENDS}
 * times, {@code roundTimeoutNanos} × 2, × 4, … after the first (the same mark each time; a replica
 * that holds it already writes nothing). A replica all of whose purges were lost keeps the delete
 * cell: space, never safety.
 *
 * <p>In memory only and bounded: a crash, or more than {@code warmKeysMax} pending deletes (or as
 * many purges still to resend), drops a completion, which leaves the key's delete cell in place
 * (space, never safety).
 *
 * <p>"Every replica" means every replica that stores the key at the delete's ring version, voters
 * and learners alike: a learner that kept an older value while the voters dropped the delete would
 * bring the value back once promoted. A completion keeps that set; if a newer placement changes the
 * members of the key's range, the completion is dropped without a purge ({@link
 * #placementChanged}): a replica that joined may hold an older value the set never acked over. Its
 * reads and purges carry the delete's ring version, so replicas that moved past it refuse them.
 */
final class DeleteCompletion {
  private final Incarnation incarnation;
  private final long probeEveryNanos;
  private final Map<RoundId, Pending> byRound = new HashMap<>();
  private final LinkedHashMap<Key, Pending> byKey;

  /** Times a purge is sent again after the first send (lost purges are not seen). */
  static final int PURGE_RESENDS = 3;

  /** One purge sent, to be sent again: bounded like {@link #byKey} (the oldest dropped first). */
  private static final class Resend {
    final Pending pending;
    final PurgeMark mark;
    int left = PURGE_RESENDS;
    long nextNanos;
    long waitNanos;

    Resend(Pending pending, PurgeMark mark) {
      this.pending = pending;
      this.mark = mark;
    }
  }

  private final LinkedHashMap<Key, Resend> resends;

  /** One delete whose phase 1 waits for some replicas. */
  private static final class Pending {
    final Key key;
    final AcceptedValue delete;
    final List<Integer> replicas;
    final long ringVersion;
    final Set<Integer> acked = new HashSet<>();
    final RoundId acceptRound;
    RoundId probeRound;
    long nextProbeNanos;

    Pending(
        Key key,
        AcceptedValue delete,
        List<Integer> replicas,
        long ringVersion,
        RoundId acceptRound) {
      this.key = key;
      this.delete = delete;
      this.replicas = replicas;
      this.ringVersion = ringVersion;
      this.acceptRound = acceptRound;
    }

    boolean complete() {
      return acked.containsAll(replicas);
    }
  }

  /**
   * @param probeEveryNanos how long phase 1 waits for the missing replicas before asking them again
   *     (the round timeout)
   * @param max the most completions kept (the oldest is dropped first)
   */
  DeleteCompletion(Incarnation incarnation, long probeEveryNanos, int max) {
    this.incarnation = incarnation;
    this.probeEveryNanos = probeEveryNanos;
    this.byKey =
        new LinkedHashMap<>(16, 0.75f, false) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<Key, Pending> eldest) {
            if (size() > max) {
              forgetRounds(eldest.getValue());
              return true;
            }
            return false;
          }
        };
    this.resends =
        new LinkedHashMap<>(16, 0.75f, false) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<Key, Resend> eldest) {
            return size() > max;
          }
        };
  }

  /**
   * The accept round {@code round} chose its delete of key {@code key}; it went to every one of
   * {@code replicas} (every replica storing the key at ring version {@code ringVersion}, the set
   * the delete ran with). Purges at once if all of them acked, else waits for them.
   */
  void deleteChosen(
      Now now, Key key, List<Integer> replicas, long ringVersion, Round round, List<Effect> out) {
    AcceptedValue chosenDelete = round.proposal.withChosen(true);
    assert chosenDelete.isDelete();
    Pending pending = new Pending(key, chosenDelete, List.copyOf(replicas), ringVersion, round.id);
    for (Map.Entry<Integer, Message.Reply> reply : round.replies.entrySet()) {
      if (reply.getValue() instanceof Message.Accepted) {
        pending.acked.add(reply.getKey());
      }
    }
    Pending replaced = byKey.remove(key);
    if (replaced != null) {
      forgetRounds(replaced);
    }
    if (pending.complete()) {
      purge(now, pending, out);
      return;
    }
    pending.nextProbeNanos = now.monoNanos() + probeEveryNanos;
    byKey.put(key, pending);
    byRound.put(round.id, pending);
  }

  /** Returns true if {@code reply} belongs to a completion (then it is consumed here). */
  boolean onReply(Now now, int from, Message.Reply reply, List<Effect> out) {
    Pending pending = byRound.get(reply.round());
    if (pending == null) {
      return false;
    }
    if (!pending.replicas.contains(from)) {
      return true;
    }
    if (reply instanceof Message.Accepted a
        && a.epoch() == pending.delete.epoch()
        && a.timestamp() == pending.delete.timestamp()) {
      pending.acked.add(from);
    } else if (reply instanceof Message.ReadReply r && r.accepted() != null) {
      AcceptedValue held = r.accepted();
      if (held.compareInstance(pending.delete) > 0) {
        end(pending); // the key moved on: the delete is no longer its newest state
        return true;
      }
      if (held.sameInstance(pending.delete) && held.isDelete()) {
        pending.acked.add(from);
      }
    }
    if (pending.complete()) {
      end(pending);
      purge(now, pending, out);
    }
    return true;
  }

  /** Re-drives phase 1 at the replicas still missing, once per round timeout. */
  void tick(Now now, List<Effect> out) {
    resendPurges(now, out);
    if (byKey.isEmpty()) {
      return;
    }
    for (Pending pending : new ArrayList<>(byKey.values())) {
      if (now.monoNanos() < pending.nextProbeNanos) {
        continue;
      }
      pending.nextProbeNanos = now.monoNanos() + probeEveryNanos;
      if (pending.probeRound != null) {
        byRound.remove(pending.probeRound);
      }
      pending.probeRound = incarnation.newRoundId();
      byRound.put(pending.probeRound, pending);
      for (int to : pending.replicas) {
        if (!pending.acked.contains(to)) {
          out.add(new Effect.Send(to, new Message.Commit(pending.key, pending.delete)));
          out.add(
              new Effect.Send(
                  to, new Message.Read(pending.key, pending.probeRound, pending.ringVersion)));
        }
      }
    }
  }

  /** Deletes waiting for phase 1 to finish (diagnostics and tests). */
  int pending() {
    return byKey.size();
  }

  private void purge(Now now, Pending pending, List<Effect> out) {
    PurgeMark mark =
        new PurgeMark(
            pending.delete.epoch(),
            pending.delete.timestamp(),
            Math.floorDiv(now.wallMicros(), 1000));
    sendPurge(pending, mark, out);
    Resend resend = new Resend(pending, mark);
    resend.waitNanos = probeEveryNanos;
    resend.nextNanos = now.monoNanos() + resend.waitNanos;
    resends.put(pending.key, resend);
  }

  private static void sendPurge(Pending pending, PurgeMark mark, List<Effect> out) {
    for (int to : pending.replicas) {
      out.add(new Effect.Send(to, new Message.Purge(pending.key, mark, pending.ringVersion)));
    }
  }

  /**
   * Sends again each purge whose next resend is due; doubles its wait; forgets it after the last.
   */
  private void resendPurges(Now now, List<Effect> out) {
    if (resends.isEmpty()) {
      return;
    }
    for (Resend r : new ArrayList<>(resends.values())) {
      if (now.monoNanos() < r.nextNanos) {
        continue;
      }
      sendPurge(r.pending, r.mark, out);
      if (--r.left == 0) {
        resends.remove(r.pending.key, r);
      } else {
        r.waitNanos *= 2;
        r.nextNanos = now.monoNanos() + r.waitNanos;
      }
    }
  }

  /** Purges still to be sent again (diagnostics and tests). */
  int purgesToResend() {
    return resends.size();
  }

  /**
   * Drops, without a purge, every completion of a key whose range's members changed: the set it
   * waits for is no longer every replica of the key.
   */
  void placementChanged(PlacementChange change) {
    for (Pending pending : new ArrayList<>(byKey.values())) {
      if (change.membersChanged(change.next().rangeOf(pending.key))) {
        end(pending);
      }
    }
    // Replicas that moved past the purge's ring version refuse it silently: no use resending.
    resends.values().removeIf(r -> change.membersChanged(change.next().rangeOf(r.pending.key)));
  }

  private void end(Pending pending) {
    byKey.remove(pending.key, pending);
    forgetRounds(pending);
  }

  private void forgetRounds(Pending pending) {
    byRound.remove(pending.acceptRound);
    if (pending.probeRound != null) {
      byRound.remove(pending.probeRound);
    }
  }
}
