package io.frsm.client.transport;

import io.frsm.client.proto.Topology;
import java.util.ArrayList;
import java.util.List;

/**
 * Maps {@link TopologySnapshot} to the client protocol's {@code Topology} and back. Decoding checks
 * every field (docs/formats/wire.md "Topology"): a bad one is a {@link WireDecodeException} naming
 * it, and the connection that carried it is closed.
 */
public final class TopologyMessages {
  private TopologyMessages() {}

  public static Topology encode(TopologySnapshot snapshot) {
    Topology.Builder b =
        Topology.newBuilder()
            .setRingVersion(snapshot.ringVersion())
            .setSequence(snapshot.sequence())
            .setCreateSettleMicros(snapshot.createSettleMicros());
    for (TopologySnapshot.Member m : snapshot.members()) {
      b.addMembers(
          Topology.Member.newBuilder()
              .setNodeId(m.nodeId())
              .setHost(m.host())
              .setClientPort(m.clientPort())
              .setLive(m.live()));
    }
    for (TopologySnapshot.Range r : snapshot.ranges()) {
      Topology.Range.Builder range = Topology.Range.newBuilder().setEndToken(r.endToken());
      r.replicas().forEach(range::addReplicas);
      if (r.leader() >= 0) {
        range.setLeader(r.leader());
      }
      b.addRanges(range);
    }
    return b.build();
  }

  public static TopologySnapshot decode(Topology t) throws WireDecodeException {
    try {
      return build(t);
    } catch (IllegalArgumentException e) {
      // A record's own invariant (TopologySnapshot and its parts check every one).
      throw new WireDecodeException("topology: " + e.getMessage(), e);
    }
  }

  private static TopologySnapshot build(Topology t) throws WireDecodeException {
    long ringVersion = ApiValues.instanceField(t.getRingVersion(), "ring_version", "topology");
    long sequence = ApiValues.instanceField(t.getSequence(), "sequence", "topology");
    List<TopologySnapshot.Member> members = new ArrayList<>(t.getMembersCount());
    for (Topology.Member m : t.getMembersList()) {
      members.add(
          new TopologySnapshot.Member(
              nodeId(m.getNodeId(), "topology.members.node_id"),
              m.getHost(),
              port(m.getClientPort(), "topology.members.client_port"),
              m.getLive()));
    }
    List<TopologySnapshot.Range> ranges = new ArrayList<>(t.getRangesCount());
    for (Topology.Range r : t.getRangesList()) {
      List<Integer> replicas = new ArrayList<>(r.getReplicasCount());
      for (int id : r.getReplicasList()) {
        replicas.add(nodeId(id, "topology.ranges.replicas"));
      }
      int leader = r.hasLeader() ? nodeId(r.getLeader(), "topology.ranges.leader") : -1;
      ranges.add(new TopologySnapshot.Range(r.getEndToken(), replicas, leader));
    }
    long settle = t.getCreateSettleMicros();
    if (settle < 0 || settle > TopologySnapshot.MAX_CREATE_SETTLE_MICROS) {
      throw new WireDecodeException(
          "topology.create_settle_micros "
              + Long.toUnsignedString(settle)
              + " is not 0-"
              + TopologySnapshot.MAX_CREATE_SETTLE_MICROS);
    }
    return new TopologySnapshot(ringVersion, sequence, members, ranges, settle);
  }

  private static int nodeId(int id, String field) throws WireDecodeException {
    // uint32 above 2^31-1 arrives negative.
    if (id < 0) {
      throw new WireDecodeException(
          field + " " + Integer.toUnsignedString(id) + " is out of range");
    }
    return id;
  }

  private static int port(int port, String field) throws WireDecodeException {
    if (port < 1 || port > 65_535) {
      throw new WireDecodeException(
          field + " " + Integer.toUnsignedString(port) + " is not 1-65535");
    }
    return port;
  }
}
