package io.frsm.server.zk;

import io.frsm.server.ring.NodeInfo;
import io.frsm.server.ring.Ring;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * The cluster's nodes with their racks, the ring's vnode count and the replication factor, fixed
 * when the cluster first forms and kept in ZooKeeper ({@link ZkLayout#shape()}). Every node builds
 * its ring and its core's placement from it, never from the live member list, so two nodes can
 * never count quorums over different replica sets (with n = 3, quorums of {1,2,3} and {1,2,4} need
 * not intersect). Racks are part of the shape because rack-aware placement chooses the replicas: a
 * rack learnt later from a registration must not move a range's replicas. Clients read it to build
 * the same ring.
 *
 * <p>The shape also carries the cluster's {@link ClusterTiming} ({@code T} and ε): nodes must all
 * run with it, and thin clients need it to time the fence after an unknown create.
 *
 * <p>Znode content (docs/FORMATS.md "ZooKeeper layout"): {@code v3|<vnodes>|<rf>|<T µs>|<ε
 * µs>|<id>:<rack>,<id>:<rack>,...}. Older shapes are still read, without timing ({@link #timing()}
 * is null): {@code v2|<vnodes>|<rf>|<id>:<rack>,...}, and {@code v1|<id>,<id>,<id>|<vnodes>} (the
 * three-node version), whose nodes get the empty rack and replication factor 3, which for three
 * nodes puts every key on all of them in ring order, as before. The first node of this version that
 * starts into such a cluster publishes its timing there ({@link #publishTimingIfAbsent}).
 *
 * @param timing the cluster's T and ε; null only in a shape written before v3
 */
public record ClusterShape(
    int vnodes, int replicationFactor, List<Member> members, ClusterTiming timing) {

  /**
   * Above what a node can be configured with (ring.vnodes): a ring this wide is no shape of ours.
   */
  public static final int MAX_VNODES = 4096;

  /** Above cluster.initialNodes' bound: more members than any cluster forms with. */
  public static final int MAX_MEMBERS = 10_000;

  /** The shape's znode is ZooKeeper's 1 MiB at most; one larger than this is no shape of ours. */
  static final int MAX_BYTES = 1 << 20;

  /** T and ε above this are beyond any node's configuration (consensus.* keys: 1 h at most). */
  static final long MAX_TIMING_MICROS = Duration.ofHours(1).toNanos() / 1_000;

  /** A node of the shape and its failure domain. */
  public record Member(int nodeId, String rack) {
    public Member {
      if (nodeId < 0) {
        throw new IllegalArgumentException("node id must be >= 0, was " + nodeId);
      }
      checkRack(rack);
    }
  }

  /** A shape without timing, as written before v3. */
  public ClusterShape(int vnodes, int replicationFactor, List<Member> members) {
    this(vnodes, replicationFactor, members, null);
  }

  public ClusterShape {
    members = List.copyOf(members);
    if (members.isEmpty()
        || members.stream().map(Member::nodeId).distinct().count() != members.size()) {
      throw new IllegalArgumentException("node ids must be distinct and non-empty: " + members);
    }
    if (members.size() > MAX_MEMBERS) {
      throw new IllegalArgumentException(
          "at most " + MAX_MEMBERS + " members, was " + members.size());
    }
    if (vnodes < 1 || vnodes > MAX_VNODES) {
      throw new IllegalArgumentException(
          "vnodes must be in [1, " + MAX_VNODES + "], was " + vnodes);
    }
    if (replicationFactor < 1 || replicationFactor > members.size()) {
      throw new IllegalArgumentException(
          "replication factor must be in [1, "
              + members.size()
              + " nodes], was "
              + replicationFactor);
    }
  }

  /**
   * Racks end up in the shape's text: they must not contain its separators.
   *
   * @throws IllegalArgumentException naming the rack if it does
   */
  public static String checkRack(String rack) {
    if (rack == null || !rack.matches("[A-Za-z0-9_.\\-]{0,64}")) {
      throw new IllegalArgumentException(
          "rack must be 0-64 characters of [A-Za-z0-9_.-], was \"" + rack + "\"");
    }
    return rack;
  }

  /** This shape with {@code published} as its timing. */
  public ClusterShape withTiming(ClusterTiming published) {
    return new ClusterShape(vnodes, replicationFactor, members, published);
  }

  /** The node ids of the shape, in the order it lists them. */
  public List<Integer> nodeIds() {
    return members.stream().map(Member::nodeId).toList();
  }

  public boolean contains(int nodeId) {
    return members.stream().anyMatch(m -> m.nodeId() == nodeId);
  }

  /**
   * The ring every node and client derives from this shape (member addresses are not part of it:
   * routing looks them up in the live membership).
   */
  public Ring ring() {
    List<NodeInfo> nodes = new ArrayList<>(members.size());
    for (Member m : members) {
      nodes.add(new NodeInfo(m.nodeId(), "", 0, 0, m.rack()));
    }
    return Ring.of(1, nodes, vnodes, replicationFactor);
  }

  /** The shape stored for the cluster, or null if it has not formed yet. */
  public static ClusterShape read(CuratorFramework zk, ZkLayout layout) throws Exception {
    try {
      return decode(zk.getData().forPath(layout.shape()));
    } catch (KeeperException.NoNodeException notFormed) {
      return null;
    }
  }

  /**
   * Reads the stored shape without blocking the caller: {@code found} gets it on a ZooKeeper thread
   * if there is one and it decodes; nothing happens otherwise (the caller reads again later).
   */
  public static void readInBackground(
      CuratorFramework zk, ZkLayout layout, java.util.function.Consumer<ClusterShape> found)
      throws Exception {
    zk.getData()
        .inBackground(
            (client, event) -> {
              if (event.getResultCode() == KeeperException.Code.OK.intValue()) {
                ClusterShape shape;
                try {
                  shape = decode(event.getData());
                } catch (RuntimeException unreadable) {
                  // Not on Curator's event thread: the caller reads again and sees the error.
                  System.getLogger(ClusterShape.class.getName())
                      .log(
                          System.Logger.Level.WARNING,
                          "cannot read the cluster shape at " + layout.shape(),
                          unreadable);
                  return;
                }
                found.accept(shape);
              }
            })
        .forPath(layout.shape());
  }

  /**
   * Stores {@code proposed} unless a shape is stored already; returns the one that holds (the first
   * writer wins).
   */
  public static ClusterShape createIfAbsent(
      CuratorFramework zk, ZkLayout layout, ClusterShape proposed) throws Exception {
    try {
      zk.create().creatingParentContainersIfNeeded().forPath(layout.shape(), proposed.encode());
      return proposed;
    } catch (KeeperException.NodeExistsException raced) {
      return read(zk, layout);
    }
  }

  /**
   * The stored shape, with a timing: a shape written before v3 has none, and then {@code timing} is
   * published into it. The write is conditional on the version read, so when two nodes race the
   * first one's timing holds and the other gets the shape carrying it. Null if the cluster has not
   * formed.
   */
  public static ClusterShape publishTimingIfAbsent(
      CuratorFramework zk, ZkLayout layout, ClusterTiming timing) throws Exception {
    while (true) {
      Stat stat = new Stat();
      ClusterShape stored;
      try {
        stored = decode(zk.getData().storingStatIn(stat).forPath(layout.shape()));
      } catch (KeeperException.NoNodeException notFormed) {
        return null;
      }
      if (stored.timing() != null) {
        return stored;
      }
      ClusterShape published = stored.withTiming(timing);
      try {
        zk.setData().withVersion(stat.getVersion()).forPath(layout.shape(), published.encode());
        return published;
      } catch (KeeperException.BadVersionException raced) {
        // Another node published first: read its timing (only timing is ever added).
      }
    }
  }

  byte[] encode() {
    if (timing == null) {
      throw new IllegalStateException("a shape is written with its timing (v3): " + this);
    }
    StringBuilder b = new StringBuilder("v3|");
    b.append(vnodes).append('|').append(replicationFactor).append('|');
    b.append(micros(timing.boundedDelay())).append('|');
    b.append(micros(timing.clockSkewBound())).append('|');
    for (int i = 0; i < members.size(); i++) {
      Member m = members.get(i);
      b.append(i == 0 ? "" : ",").append(m.nodeId()).append(':').append(m.rack());
    }
    return b.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static long micros(Duration d) {
    return d.toNanos() / 1_000;
  }

  /**
   * The shape in {@code data}.
   *
   * @throws IllegalArgumentException if {@code data} is no shape this node can use (a newer
   *     writer's, or forged, damaged or oversized bytes: the message quotes at most 80 characters)
   */
  static ClusterShape decode(byte[] data) {
    if (data == null || data.length > MAX_BYTES) {
      throw new IllegalArgumentException(
          "malformed cluster shape: "
              + (data == null ? "no data" : data.length + " bytes, over " + MAX_BYTES));
    }
    String text = new String(data, StandardCharsets.UTF_8);
    String[] f = text.split("\\|", -1);
    try {
      if (f.length == 3 && f[0].equals("v1")) {
        List<Member> nodes = new ArrayList<>();
        for (String id : f[1].split(",")) {
          nodes.add(new Member(Integer.parseInt(id), ""));
        }
        return new ClusterShape(Integer.parseInt(f[2]), 3, nodes);
      }
      if (f.length == 4 && f[0].equals("v2")) {
        return new ClusterShape(
            Integer.parseInt(f[1]), Integer.parseInt(f[2]), decodeMembers(f[3]), null);
      }
      if (f.length == 6 && f[0].equals("v3")) {
        ClusterTiming timing =
            new ClusterTiming(
                Duration.of(timingMicros(f[3]), ChronoUnit.MICROS),
                Duration.of(timingMicros(f[4]), ChronoUnit.MICROS));
        return new ClusterShape(
            Integer.parseInt(f[1]), Integer.parseInt(f[2]), decodeMembers(f[5]), timing);
      }
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "malformed cluster shape \"" + abbreviated(text) + "\": " + e.getMessage(), e);
    }
    throw new IllegalArgumentException("malformed cluster shape \"" + abbreviated(text) + "\"");
  }

  private static long timingMicros(String field) {
    long micros = Long.parseLong(field);
    if (micros < 0 || micros > MAX_TIMING_MICROS) {
      throw new IllegalArgumentException(
          "timing " + micros + " µs out of [0, " + MAX_TIMING_MICROS + "]");
    }
    return micros;
  }

  private static String abbreviated(String s) {
    return s.length() <= 80 ? s : s.substring(0, 80) + "... (" + s.length() + " characters)";
  }

  private static List<Member> decodeMembers(String field) {
    List<Member> nodes = new ArrayList<>();
    String[] entries = field.split(",");
    if (entries.length > MAX_MEMBERS) {
      throw new IllegalArgumentException("over " + MAX_MEMBERS + " members");
    }
    for (String entry : entries) {
      int colon = entry.indexOf(':');
      if (colon < 0) {
        throw new IllegalArgumentException("member without rack: " + entry);
      }
      nodes.add(
          new Member(Integer.parseInt(entry.substring(0, colon)), entry.substring(colon + 1)));
    }
    return nodes;
  }
}
