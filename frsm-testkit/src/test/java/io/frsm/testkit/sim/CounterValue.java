package io.frsm.testkit.sim;

import java.nio.charset.StandardCharsets;
import java.util.TreeMap;

/**
 * The value of a counter in the Appendix C workload: the count and, per client, the sequence number
 * of its last increment that took effect. The tag map tells a client, after a fence, whether its
 * increment with an unknown outcome took effect.
 */
record CounterValue(long count, TreeMap<Integer, Long> lastSeqByClient) {
  static CounterValue zero() {
    return new CounterValue(0, new TreeMap<>());
  }

  CounterValue increment(int client, long seq) {
    TreeMap<Integer, Long> tags = new TreeMap<>(lastSeqByClient);
    tags.put(client, seq);
    return new CounterValue(count + 1, tags);
  }

  long lastSeq(int client) {
    return lastSeqByClient.getOrDefault(client, -1L);
  }

  byte[] encode() {
    StringBuilder b = new StringBuilder().append(count);
    lastSeqByClient.forEach((c, s) -> b.append(' ').append(c).append(':').append(s));
    return b.toString().getBytes(StandardCharsets.US_ASCII);
  }

  static CounterValue decode(byte[] bytes) {
    String[] parts = new String(bytes, StandardCharsets.US_ASCII).split(" ");
    TreeMap<Integer, Long> tags = new TreeMap<>();
    for (int i = 1; i < parts.length; i++) {
      int colon = parts[i].indexOf(':');
      tags.put(
          Integer.parseInt(parts[i].substring(0, colon)),
          Long.parseLong(parts[i].substring(colon + 1)));
    }
    return new CounterValue(Long.parseLong(parts[0]), tags);
  }
}
