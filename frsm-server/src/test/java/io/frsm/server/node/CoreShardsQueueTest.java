package io.frsm.server.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.frsm.cell.Key;
import io.frsm.client.transport.TransportEventLoops;
import io.frsm.consensus.core.CoreConfig;
import io.frsm.consensus.core.Message;
import io.frsm.consensus.core.Operation;
import io.frsm.consensus.core.Outcome;
import io.frsm.consensus.core.Placement;
import io.frsm.consensus.core.ShardRouting;
import io.frsm.lsm.LsmConfig;
import io.frsm.lsm.LsmEngine;
import io.frsm.lsm.io.NioFileSystem;
import io.frsm.store.CachingCellStore;
import io.frsm.store.LsmCellStore;
import io.frsm.transport.PeerTransport;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The queues of {@link CoreShards}. Their depth figures: the sum over the shards, and the busiest
 * shard's depth, which shows one saturated shard the sum hides; the shards are not started, so what
 * is submitted stays queued until {@link CoreShards#stop()} fails it — on threads of their own or
 * on a transport event loop, where inputs that arrive before the start must wait for it too. And on
 * a loop, an operation submitted to an idle core is drained without any other input.
 */
class CoreShardsQueueTest {
  private static final List<Integer> REPLICAS = List.of(1, 2, 3);

  @TempDir Path dir;
  private LsmEngine engine;

  @AfterEach
  void closeEngine() {
    if (engine != null) {
      engine.kill();
    }
  }

  @Test
  void deepestQueue_isTheBusiestShards_whileTheSumCountsThemAll() throws Exception {
    deepestQueue(List.of());
  }

  @Test
  void onATransportLoop_nothingIsSteppedBeforeTheStart_andStopFailsWhatIsQueued() throws Exception {
    try (TransportEventLoops loops = TransportEventLoops.create(1, false)) {
      deepestQueue(loops.loops());
    }
  }

  @Test
  void onATransportLoop_anOperationOnAnIdleCore_runsWithoutAnyOtherInput() throws Exception {
    // One replica: the core needs nobody else, so nothing but the submit itself can start a drain.
    Placement alone = Placement.splitAt(List.of(0L), List.of(1));
    try (TransportEventLoops loops = TransportEventLoops.create(1, false)) {
      CoreShards shards = shards(alone, 1, List.of(), loops.loops());
      shards.start();
      try {
        // The start's own drain has run (the loop runs its tasks in order): the core is idle now.
        loops.loops().get(0).submit(() -> {}).get(30, TimeUnit.SECONDS);
        Key key = Key.of("idle".getBytes(StandardCharsets.US_ASCII));
        Outcome created =
            shards
                .submit(
                    new Operation.Create(key, new byte[] {1}), System.currentTimeMillis() * 1000)
                .get(30, TimeUnit.SECONDS)
                .outcome();
        assertInstanceOf(Outcome.Written.class, created);
      } finally {
        shards.stop();
      }
    }
  }

  private void deepestQueue(List<io.netty.util.concurrent.EventExecutor> hostLoops)
      throws Exception {
    Placement placement = Placement.splitAt(List.of(-(1L << 62), 0L, 1L << 62), REPLICAS);
    CoreShards shards = shards(placement, 2, List.of(2, 3), hostLoops);
    assertEquals(0, shards.queueDepth());
    assertEquals(0, shards.deepestQueue());

    ShardRouting routing = new ShardRouting(placement, 2);
    List<CompletableFuture<CoreAnswer>> answers = new ArrayList<>();
    int[] perShard = new int[2];
    for (int i = 0; perShard[0] < 5 || perShard[1] < 1; i++) {
      Key key = Key.of(("key-" + i).getBytes(StandardCharsets.US_ASCII));
      int shard = routing.ofKey(key);
      if (shard == 1 && perShard[1] == 1) {
        continue; // five on shard 0, one on shard 1
      }
      perShard[shard]++;
      answers.add(shards.submit(new Operation.Create(key, new byte[] {1}), 0));
    }
    assertEquals(6, shards.queueDepth());
    assertEquals(5, shards.deepestQueue());

    shards.stop();
    for (CompletableFuture<CoreAnswer> answer : answers) {
      assertInstanceOf(Outcome.NotExecuted.class, answer.get(10, TimeUnit.SECONDS).outcome());
    }
    assertEquals(0, shards.queueDepth());
    assertEquals(0, shards.deepestQueue());
  }

  /** Node 1's {@code count} shards over a fresh engine in {@link #dir}, not started. */
  private CoreShards shards(
      Placement placement,
      int count,
      List<Integer> peers,
      List<io.netty.util.concurrent.EventExecutor> hostLoops)
      throws Exception {
    engine =
        LsmEngine.open(
            LsmConfig.builder(dir).build(), NioFileSystem.INSTANCE, new SimpleMeterRegistry());
    return new CoreShards(
        1,
        1,
        CoreConfig.defaults(placement),
        count,
        new CachingCellStore(new LsmCellStore(engine), 1 << 20),
        engine,
        new DroppingTransport(),
        1_000_000,
        new PeerMessageCounts(peers),
        hostLoops,
        error -> {},
        java.time.Duration.ZERO,
        new RangeQuorums(),
        AcceptorSilence.NEVER);
  }

  /** Nothing here reaches a peer: a send is dropped. */
  private static final class DroppingTransport implements PeerTransport {
    @Override
    public boolean send(int nodeId, Message message) {
      return false;
    }

    @Override
    public void close() {}
  }
}
