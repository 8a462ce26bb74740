package io.frsm.lsm.commitlog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.cell.Cell;
import io.frsm.lsm.io.NioFileSystem;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Writes and replays about 50 MB on the real file system; checks correctness only, not speed. */
class CommitLogNioReplayTest {
  private static final int RECORDS = 50_000;
  private static final int VALUE_BYTES = 1000;

  @TempDir Path root;

  @Test
  void fiftyMegabytes_replayExactlyOnceThroughNio() throws Exception {
    CommitLogConfig config =
        CommitLogConfig.builder(List.of(root.resolve("a"), root.resolve("b")))
            .segmentSizeBytes(8L << 20)
            .build();
    try (CommitLog log =
        CommitLog.open(NioFileSystem.INSTANCE, config, new SimpleMeterRegistry(), c -> {})) {
      List<CompletableFuture<Void>> window = new ArrayList<>();
      for (int i = 0; i < RECORDS; i++) {
        window.add(log.append(TestCells.cell(i, VALUE_BYTES)));
        if (window.size() == 2000) { // bounded in flight, big batches, few syncs
          CompletableFuture.allOf(window.toArray(CompletableFuture[]::new))
              .get(60, TimeUnit.SECONDS);
          window.clear();
        }
      }
      CompletableFuture.allOf(window.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
      assertTrue(log.totalSizeBytes() > 50_000_000L, "about 50 MB: " + log.totalSizeBytes());
    }
    BitSet seen = new BitSet(RECORDS);
    int[] count = {0};
    List<Cell> wrong = new ArrayList<>();
    CommitLog.open(
            NioFileSystem.INSTANCE,
            config,
            new SimpleMeterRegistry(),
            cell -> {
              int i = (int) cell.accepted().timestamp();
              if (!cell.equals(TestCells.cell(i, VALUE_BYTES))) {
                wrong.add(cell);
              }
              seen.set(i);
              count[0]++;
            })
        .close();
    assertEquals(List.of(), wrong);
    assertEquals(RECORDS, count[0], "each record exactly once");
    assertEquals(RECORDS, seen.cardinality());
  }
}
