package io.frsm.consensus.core;

import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * One round a coordinator runs for an operation: a read, a prepare or an accept, sent to some of
 * the key's replicas and collecting at most one reply from each. Mutable; owned by its {@link Run}.
 */
final class Round {
  enum Phase {
    READ,
    PREPARE,
    ACCEPT
  }

  final RoundId id;
  final Phase phase;

  /** The prepare's or accept's ballot; {@link Ballot#NONE} for a read. */
  final Ballot ballot;

  /** The accept's proposal; null otherwise. */
  final AcceptedValue proposal;

  final long startedNanos;
  final Set<Integer> sentTo = new LinkedHashSet<>();
  final Map<Integer, Message.Reply> replies = new LinkedHashMap<>();
  boolean widened;

  Round(RoundId id, Phase phase, Ballot ballot, AcceptedValue proposal, long startedNanos) {
    this.id = id;
    this.phase = phase;
    this.ballot = ballot;
    this.proposal = proposal;
    this.startedNanos = startedNanos;
  }

  /** Records the first reply of {@code from}; returns false for a duplicate or a stranger. */
  boolean record(int from, Message.Reply reply) {
    if (!sentTo.contains(from) || replies.containsKey(from)) {
      return false;
    }
    replies.put(from, reply);
    return true;
  }

  /** Replies of the given type that confirm this round (promises or acks for its ballot). */
  int count(Class<? extends Message.Reply> type) {
    int n = 0;
    for (Message.Reply r : replies.values()) {
      if (type.isInstance(r)) {
        n++;
      }
    }
    return n;
  }
}
