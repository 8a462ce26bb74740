package io.frsm.server.cli;

import io.frsm.client.proto.ClusterStatus;
import io.frsm.client.proto.NodeStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * What {@code frsm admin status} and {@code ring} print: the cluster as one serving node reads it,
 * with each node's own report (null for a node that did not answer), as aligned tables or JSON.
 * Every string came from a node, so it is printed with control characters replaced.
 */
final class AdminReport {
  static final String DOWN = "down";

  private final ClusterStatus cluster;
  private final Map<Integer, NodeStatus> reports;

  AdminReport(ClusterStatus cluster, Map<Integer, NodeStatus> reports) {
    this.cluster = cluster;
    this.reports = new TreeMap<>(reports);
  }

  /** member (a voter somewhere), learner, joining candidate, retired, or down. */
  String state(int id) {
    if (cluster.getRetiredList().contains(id)) {
      return "retired";
    }
    if (reports.get(id) == null) {
      return DOWN;
    }
    boolean voter = cluster.getRangesList().stream().anyMatch(r -> r.getVotersList().contains(id));
    if (voter) {
      return "member";
    }
    boolean learner =
        cluster.getRangesList().stream().anyMatch(r -> r.getLearnersList().contains(id));
    return learner ? "learner" : "joining candidate";
  }

  String statusTable() {
    List<List<String>> rows = new ArrayList<>();
    rows.add(List.of("NODE", "ADDRESS", "STATE", "RANGES LED", "RING", "QUARANTINED", "SCRUB"));
    for (ClusterStatus.KnownNode n : cluster.getNodesList()) {
      NodeStatus r = reports.get(n.getNodeId());
      rows.add(
          List.of(
              Integer.toString(n.getNodeId()),
              n.getHost().isEmpty() ? "-" : clean(n.getHost()) + ":" + n.getClientPort(),
              state(n.getNodeId()),
              r == null ? "-" : Integer.toString(r.getRangesLedCount()),
              installed(n.getNodeId()),
              r == null || r.getQuarantinedCount() == 0
                  ? "-"
                  : clean(String.join("; ", r.getQuarantinedList())),
              r == null || r.getScrub().isEmpty() ? "-" : clean(r.getScrub())));
    }
    return table(rows)
        + "ring version "
        + cluster.getNewestRingVersion()
        + "; membership change: "
        + (cluster.getMembershipChange().isEmpty() ? "none" : clean(cluster.getMembershipChange()))
        + System.lineSeparator();
  }

  String ringTable() {
    StringBuilder out = new StringBuilder();
    out.append("ring version ")
        .append(cluster.getNewestRingVersion())
        .append(" (newest); installed:");
    for (ClusterStatus.InstalledVersion v : cluster.getInstalledList()) {
      out.append(" node ").append(v.getNodeId()).append('=').append(v.getVersion());
    }
    out.append(System.lineSeparator());
    List<List<String>> rows = new ArrayList<>();
    rows.add(List.of("RANGE", "START (EXCLUSIVE)", "END", "VOTERS", "LEARNERS"));
    int i = 0;
    for (ClusterStatus.RingRange r : cluster.getRangesList()) {
      rows.add(
          List.of(
              Integer.toString(i++),
              Long.toString(r.getStartTokenExclusive()),
              Long.toString(r.getEndToken()),
              ids(r.getVotersList()),
              r.getLearnersCount() == 0 ? "-" : ids(r.getLearnersList())));
    }
    return out.append(table(rows)).toString();
  }

  String statusJson() {
    StringBuilder j = new StringBuilder("{\"ringVersion\":").append(cluster.getNewestRingVersion());
    j.append(",\"membershipChange\":")
        .append(
            cluster.getMembershipChange().isEmpty()
                ? "null"
                : Json.string(cluster.getMembershipChange()));
    j.append(",\"nodes\":[");
    String sep = "";
    for (ClusterStatus.KnownNode n : cluster.getNodesList()) {
      NodeStatus r = reports.get(n.getNodeId());
      j.append(sep).append("{\"id\":").append(n.getNodeId());
      j.append(",\"address\":")
          .append(
              n.getHost().isEmpty() ? "null" : Json.string(n.getHost() + ":" + n.getClientPort()));
      j.append(",\"state\":").append(Json.string(state(n.getNodeId())));
      j.append(",\"installedRingVersion\":").append(installedJson(n.getNodeId()));
      if (r != null) {
        j.append(",\"rangesLed\":").append(r.getRangesLedList());
        j.append(",\"quarantined\":")
            .append(
                r.getQuarantinedList().stream()
                    .map(Json::string)
                    .collect(Collectors.joining(",", "[", "]")));
        j.append(",\"scrub\":").append(Json.string(r.getScrub()));
      }
      j.append('}');
      sep = ",";
    }
    return j.append("]}").toString();
  }

  String ringJson() {
    StringBuilder j = new StringBuilder("{\"ringVersion\":").append(cluster.getNewestRingVersion());
    j.append(",\"installed\":{");
    String sep = "";
    for (ClusterStatus.InstalledVersion v : cluster.getInstalledList()) {
      j.append(sep).append('"').append(v.getNodeId()).append("\":").append(v.getVersion());
      sep = ",";
    }
    j.append("},\"ranges\":[");
    sep = "";
    for (ClusterStatus.RingRange r : cluster.getRangesList()) {
      j.append(sep)
          .append("{\"startExclusive\":")
          .append(r.getStartTokenExclusive())
          .append(",\"end\":")
          .append(r.getEndToken())
          .append(",\"voters\":")
          .append(r.getVotersList())
          .append(",\"learners\":")
          .append(r.getLearnersList())
          .append('}');
      sep = ",";
    }
    return j.append("]}").toString();
  }

  private String installed(int id) {
    String v = installedJson(id);
    return v.equals("null") ? "-" : v;
  }

  private String installedJson(int id) {
    for (ClusterStatus.InstalledVersion v : cluster.getInstalledList()) {
      if (v.getNodeId() == id) {
        return Long.toString(v.getVersion());
      }
    }
    NodeStatus r = reports.get(id);
    return r == null || r.getInstalledRingVersion() < 0
        ? "null"
        : Long.toString(r.getInstalledRingVersion());
  }

  private static String ids(List<Integer> ids) {
    return ids.stream().map(String::valueOf).collect(Collectors.joining(","));
  }

  /** Columns padded to their widest cell, two spaces apart. */
  static String table(List<List<String>> rows) {
    int[] width = new int[rows.get(0).size()];
    for (List<String> row : rows) {
      for (int c = 0; c < row.size(); c++) {
        width[c] = Math.max(width[c], row.get(c).length());
      }
    }
    StringBuilder out = new StringBuilder();
    for (List<String> row : rows) {
      StringBuilder line = new StringBuilder();
      for (int c = 0; c < row.size(); c++) {
        line.append(row.get(c)).append(" ".repeat(width[c] - row.get(c).length() + 2));
      }
      out.append(line.toString().stripTrailing()).append(System.lineSeparator());
    }
    return out.toString();
  }

  /** A node's string made safe for a terminal: control characters become '?'. */
  static String clean(String s) {
    StringBuilder b = new StringBuilder(s.length());
    s.codePoints().forEach(c -> b.appendCodePoint(Character.isISOControl(c) ? '?' : c));
    return b.toString();
  }

  /** JSON strings, escaped per RFC 8259. */
  static final class Json {
    private Json() {}

    static String string(String s) {
      StringBuilder b = new StringBuilder("\"");
      for (int i = 0; i < s.length(); i++) {
        char c = s.charAt(i);
        switch (c) {
          case '"' -> b.append("\\\"");
          case '\\' -> b.append("\\\\");
          default -> {
            if (c < 0x20) {
              b.append(String.format("\\u%04x", (int) c));
            } else {
              b.append(c);
            }
          }
        }
      }
      return b.append('"').toString();
    }
  }
}
