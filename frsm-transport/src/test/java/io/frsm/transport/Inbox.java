package io.frsm.transport;

import io.frsm.consensus.core.Message;
import java.util.ArrayList;
import java.util.List;

/** Collects what a peer transport delivers. Thread-safe. */
final class Inbox implements PeerTransport.InboundHandler {
  record Delivery(int from, Message message) {}

  private final List<Delivery> deliveries = new ArrayList<>();

  @Override
  public synchronized void onMessage(int fromNodeId, Message message) {
    deliveries.add(new Delivery(fromNodeId, message));
  }

  synchronized int size() {
    return deliveries.size();
  }

  synchronized List<Delivery> snapshot() {
    return List.copyOf(deliveries);
  }

  synchronized List<Message> from(int node) {
    List<Message> out = new ArrayList<>();
    for (Delivery d : deliveries) {
      if (d.from() == node) {
        out.add(d.message());
      }
    }
    return out;
  }
}
