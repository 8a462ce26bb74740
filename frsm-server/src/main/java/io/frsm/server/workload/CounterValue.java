package io.frsm.server.workload;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;

/**
 * The value of an Appendix C counter: the count and, per client, the sequence number of its last
 * increment that took effect. Because a client increments a counter one call at a time, "did my
 * increment {@code seq} take effect?" is "is my recorded sequence ≥ seq?" — which resolves an
 * unknown outcome after a fence. Encoded as text {@code count;client=seq;...}.
 */
record CounterValue(long count, Map<Integer, Long> lastSeqByClient) {

  CounterValue {
    lastSeqByClient = Map.copyOf(lastSeqByClient);
  }

  static CounterValue zero() {
    return new CounterValue(0, Map.of());
  }

  CounterValue increment(int client, long seq) {
    Map<Integer, Long> next = new TreeMap<>(lastSeqByClient);
    next.put(client, seq);
    return new CounterValue(count + 1, next);
  }

  boolean includes(int client, long seq) {
    return lastSeqByClient.getOrDefault(client, -1L) >= seq;
  }

  byte[] encode() {
    StringBuilder sb = new StringBuilder().append(count);
    new TreeMap<>(lastSeqByClient)
        .forEach((c, s) -> sb.append(';').append(c).append('=').append(s));
    return sb.toString().getBytes(StandardCharsets.US_ASCII);
  }

  static CounterValue decode(byte[] bytes) {
    String[] parts = new String(bytes, StandardCharsets.US_ASCII).split(";");
    Map<Integer, Long> seqs = new TreeMap<>();
    for (int i = 1; i < parts.length; i++) {
      int eq = parts[i].indexOf('=');
      seqs.put(
          Integer.parseInt(parts[i].substring(0, eq)), Long.parseLong(parts[i].substring(eq + 1)));
    }
    return new CounterValue(Long.parseLong(parts[0]), seqs);
  }
}
