package io.frsm.server.node;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Network faults on one node's peer links, for tests (docs/OPERATIONS.md "Partial failures"): drop
 * the messages this node sends to chosen peers, or those it receives from them, and delay those it
 * sends. One-way cuts come from one side only; {@link #isolateFrom} cuts both ways. Switchable at
 * any time from any thread; takes effect for the next message.
 *
 * <p>A node is given one with {@link FrsmNodeBuilder#peerLinkFaults} (tests only; there is no
 * configuration key). Without one the node's peer transport is used as it is, so production pays
 * nothing. The faults act where the node hands messages to its transport and where the transport
 * hands them to the node ({@link FaultyPeerTransport}): connections stay up, as in a partition
 * whose TCP connections have not timed out yet, and the transport itself is not modified.
 *
 * <p>Thread-safe.
 */
final class PeerLinkFaults {
  private final Set<Integer> dropTo = ConcurrentHashMap.newKeySet();
  private final Set<Integer> dropFrom = ConcurrentHashMap.newKeySet();
  private final Map<Integer, Long> delayToNanos = new ConcurrentHashMap<>();
  private final LongAdder dropped = new LongAdder();
  private volatile java.util.function.Predicate<io.frsm.consensus.core.Message> dropKind =
      message -> false;

  /** Drops every message this node sends to {@code peers} from now on. */
  PeerLinkFaults cutTo(int... peers) {
    for (int p : peers) {
      dropTo.add(p);
    }
    return this;
  }

  /** Drops every message this node receives from {@code peers} from now on. */
  PeerLinkFaults cutFrom(int... peers) {
    for (int p : peers) {
      dropFrom.add(p);
    }
    return this;
  }

  /** Cuts both directions between this node and {@code peers}. */
  PeerLinkFaults isolateFrom(int... peers) {
    return cutTo(peers).cutFrom(peers);
  }

  /**
   * Delays every message this node sends to {@code peer} by {@code delay} ({@link Duration#ZERO}:
   * no more delay). Messages to one peer keep their order.
   */
  PeerLinkFaults delayTo(int peer, Duration delay) {
    if (delay.isNegative()) {
      throw new IllegalArgumentException("negative delay: " + delay);
    }
    if (delay.isZero()) {
      delayToNanos.remove(peer);
    } else {
      delayToNanos.put(peer, delay.toNanos());
    }
    return this;
  }

  /** Drops every message this node sends to any peer that {@code kind} matches (e.g. purges). */
  PeerLinkFaults dropSent(java.util.function.Predicate<io.frsm.consensus.core.Message> kind) {
    dropKind = java.util.Objects.requireNonNull(kind, "kind");
    return this;
  }

  /** Ends every fault: every link works again (messages dropped meanwhile stay lost). */
  PeerLinkFaults heal() {
    dropKind = message -> false;
    dropTo.clear();
    dropFrom.clear();
    delayToNanos.clear();
    return this;
  }

  boolean dropsTo(int peer) {
    return dropTo.contains(peer);
  }

  /** Whether {@code message} is of a kind dropped on every link ({@link #dropSent}). */
  boolean dropsSent(io.frsm.consensus.core.Message message) {
    return dropKind.test(message);
  }

  boolean dropsFrom(int peer) {
    return dropFrom.contains(peer);
  }

  /** How long messages to {@code peer} are held, 0 if not at all. */
  long delayToNanos(int peer) {
    return delayToNanos.getOrDefault(peer, 0L);
  }

  void countDrop() {
    dropped.increment();
  }

  /** Messages dropped so far, both ways. */
  long dropped() {
    return dropped.sum();
  }
}
