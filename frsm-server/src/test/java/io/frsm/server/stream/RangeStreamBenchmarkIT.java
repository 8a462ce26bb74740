package io.frsm.server.stream;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * Unthrottled streaming throughput on loopback, run by hand (issue 22 "Performance"): a source
 * holding {@code -Dfrsm.stream.benchKeys} chosen keys of 512-byte values streams the whole ring to
 * a receiver over mutual TLS (and, with {@code -Dfrsm.stream.benchPlaintext=true}, plaintext). The
 * receiver's log line "copy of ... imported" splits the time into export, transfer and import; this
 * prints the end-to-end figure. Every cell is checked afterwards.
 *
 * <pre>
 * ./mvnw -B -ntp -pl frsm-server -am verify -Dtest=none -Dit.test=RangeStreamBenchmarkIT \
 *     -Dsurefire.failIfNoSpecifiedTests=false -Dfrsm.stream.benchKeys=1000000
 * </pre>
 */
@EnabledIfSystemProperty(named = "frsm.stream.benchKeys", matches = "\\d+")
class RangeStreamBenchmarkIT {
  private static final int VALUE_BYTES = 512;

  @Test
  void unthrottledCopy_ofTheWholeRing(@TempDir Path tmp) throws Exception {
    int keys = Integer.getInteger("frsm.stream.benchKeys");
    boolean tls = !Boolean.getBoolean("frsm.stream.benchPlaintext");
    StreamTestNode.Cluster cluster = new StreamTestNode.Cluster(tmp, tls);
    try (StreamTestNode source = cluster.start(1, StreamSettings.defaults(), p -> p);
        StreamTestNode receiver = cluster.start(2, StreamSettings.defaults(), p -> p)) {
      long writeStart = System.nanoTime();
      source.writeChosen(keys, VALUE_BYTES);
      System.out.printf(
          "BENCH wrote %d keys of %d B in %.1f s%n",
          keys, VALUE_BYTES, (System.nanoTime() - writeStart) / 1e9);
      long start = System.nanoTime();
      receiver.streams.copy(1, 0, 0).get(30, TimeUnit.MINUTES);
      double seconds = (System.nanoTime() - start) / 1e9;
      double bytes = receiver.counter("frsm.stream.bytes.received");
      System.out.printf(
          "BENCH %s: %.0f bytes copied end to end (export, transfer, import) in %.2f s = %.1f"
              + " MB/s%n",
          tls ? "mutual TLS" : "plaintext", bytes, seconds, bytes / 1e6 / seconds);
      RangeStreamIT.assertCopied(receiver, keys, VALUE_BYTES, 0, 0);
    }
  }
}
