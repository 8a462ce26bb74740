package io.frsm.bench.consensus;

import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import io.frsm.cell.Cell;
import io.frsm.cell.CellMerge;
import io.frsm.cell.Key;
import io.frsm.consensus.core.CoreConfig;
import io.frsm.consensus.core.Effect;
import io.frsm.consensus.core.Input;
import io.frsm.consensus.core.Message;
import io.frsm.consensus.core.NodeCore;
import io.frsm.consensus.core.Now;
import io.frsm.consensus.core.Operation;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Steps per second of the pure consensus core on one thread, storage in a {@code HashMap} (no I/O):
 * what one event loop can drive at most.
 *
 * <ul>
 *   <li>{@code acceptorPrepare}: one prepare on one of 1,024 keys plus its {@code PersistDone} (2
 *       steps an operation): promise check, persist effect, held reply released.
 *   <li>{@code coordinatorQuorumRead}: one get as coordinator of a 3-node set: the client request,
 *       then three {@code ReadReply}s agreeing on a chosen value (4 steps an operation). The
 *       replies' promises are not the coordinator's ballot, so the answer leaves with the third
 *       reply (all {@code n} replied), as docs/DESIGN.md's quorum-read rule asks.
 * </ul>
 *
 * Run: {@code ./mvnw -pl frsm-bench -am package -DskipTests && java -jar
 * frsm-bench/target/frsm-bench.jar jmh ConsensusCoreBenchmark}. Multiply ops/s by the steps per
 * operation for steps/s.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ConsensusCoreBenchmark {
  private static final int KEYS = 1024;
  private static final long WALL_MICROS = 1_700_000_000_000_000L;

  private final Key[] keys = new Key[KEYS];
  private final Map<Key, Cell> durable = new HashMap<>();
  private NodeCore acceptorNode;
  private NodeCore coordinatorNode;
  private AcceptedValue chosen;
  private long nanos;
  private long round;
  private long requestId;
  private int next;

  @Setup
  public void setUp() {
    for (int i = 0; i < KEYS; i++) {
      keys[i] = Key.of(("key-" + i).getBytes(StandardCharsets.US_ASCII));
    }
    CoreConfig config = CoreConfig.defaults(List.of(0, 1, 2));
    acceptorNode = new NodeCore(0, 1, config, durable::get, bound -> 0);
    Map<Key, Cell> empty = new HashMap<>();
    coordinatorNode = new NodeCore(0, 1, config, empty::get, bound -> 0);
    chosen =
        AcceptedValue.live(
            7, 3, new Ballot(WALL_MICROS, 1, 1), "value".getBytes(StandardCharsets.US_ASCII), true);
  }

  private Now now() {
    return new Now(WALL_MICROS + nanos / 1000, ++nanos);
  }

  @Benchmark
  public void acceptorPrepare(Blackhole bh) {
    Key key = keys[next++ & (KEYS - 1)];
    Ballot ballot = new Ballot(++round, 1, 1);
    List<Effect> effects =
        acceptorNode.step(
            now(),
            new Input.Receive(
                1,
                new Message.Prepare(key, new io.frsm.consensus.core.RoundId(1, 1, round), ballot)));
    Effect.Persist persist = (Effect.Persist) effects.get(0);
    durable.merge(key, persist.delta(), CellMerge::merge);
    bh.consume(acceptorNode.step(now(), new Input.PersistDone(persist.persistId())));
  }

  @Benchmark
  public void coordinatorQuorumRead(Blackhole bh) {
    Key key = keys[next++ & (KEYS - 1)];
    List<Effect> reads =
        coordinatorNode.step(
            now(), new Input.ClientRequest(requestId++, new Operation.Get(key), WALL_MICROS));
    for (Effect effect : reads) {
      Effect.Send send = (Effect.Send) effect;
      Message.Read read = (Message.Read) send.message();
      bh.consume(
          coordinatorNode.step(
              now(),
              new Input.Receive(
                  send.to(), new Message.ReadReply(key, read.round(), chosen.accepted(), chosen))));
    }
  }
}
