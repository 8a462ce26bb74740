package io.frsm.server.node;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Peer messages sent to and received from each other node, counted by the core threads as {@code
 * Send} effects leave and {@code Receive} inputs arrive, and read by the meter registry from any
 * thread. The peers are fixed when the cluster forms; a message from any other node id is not
 * counted (the transport has no such peer address, so it cannot occur in a formed cluster).
 */
final class PeerMessageCounts {
  private final Map<Integer, AtomicLong> sent;
  private final Map<Integer, AtomicLong> received;

  PeerMessageCounts(Collection<Integer> peers) {
    Map<Integer, AtomicLong> s = new HashMap<>();
    Map<Integer, AtomicLong> r = new HashMap<>();
    for (int peer : peers) {
      s.put(peer, new AtomicLong());
      r.put(peer, new AtomicLong());
    }
    this.sent = Map.copyOf(s);
    this.received = Map.copyOf(r);
  }

  void sent(int peer) {
    AtomicLong c = sent.get(peer);
    if (c != null) {
      c.incrementAndGet();
    }
  }

  void received(int peer) {
    AtomicLong c = received.get(peer);
    if (c != null) {
      c.incrementAndGet();
    }
  }

  Collection<Integer> peers() {
    return sent.keySet();
  }

  long sentTo(int peer) {
    return sent.get(peer).get();
  }

  long receivedFrom(int peer) {
    return received.get(peer).get();
  }
}
