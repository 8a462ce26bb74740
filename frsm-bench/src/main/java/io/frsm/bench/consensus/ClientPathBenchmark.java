package io.frsm.bench.consensus;

import io.frsm.api.Version;
import io.frsm.api.Versioned;
import io.frsm.consensus.core.Operation;
import io.frsm.consensus.core.Outcome;
import io.frsm.consensus.transport.CallerThreadClient;
import io.frsm.consensus.transport.ClientProtocolClient;
import io.frsm.consensus.transport.ClientProtocolServer;
import io.frsm.consensus.transport.OperationRequest;
import io.frsm.consensus.transport.OperationResponse;
import io.frsm.consensus.transport.TransportConfig;
import io.frsm.consensus.transport.TransportEventLoops;
import io.frsm.lsm.cell.Key;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The thin client's transport alone: a sync get against a client-protocol server on loopback that
 * answers at once on its event loop with a 512-byte value (no consensus, no disk), over the two
 * paths a sync call can take: {@code shared} — the one multiplexed connection per node, owned by an
 * event loop ({@code ClientProtocolClient}; the caller parks until the loop completes its future),
 * and {@code direct} — a connection of the caller's own, written and read on its thread ({@code
 * CallerThreadClient}). Run with {@code -t} caller threads; on a CPU-bound machine the throughput
 * is the inverse of the CPU a call costs client and server together.
 *
 * <p>Run: {@code ./mvnw -pl frsm-bench -am package -DskipTests && java -jar
 * frsm-bench/target/frsm-bench.jar jmh ClientPathBenchmark -t 16}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 3)
@Measurement(iterations = 5, time = 3)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class ClientPathBenchmark {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  @Param({"shared", "direct"})
  public String path;

  private TransportEventLoops serverLoops;
  private TransportEventLoops clientLoops;
  private ClientProtocolServer server;
  private ClientProtocolClient shared;
  private CallerThreadClient direct;
  private OperationRequest get;

  @Setup(Level.Trial)
  public void setUp() {
    TransportConfig config = TransportConfig.builder("bench").build();
    serverLoops = TransportEventLoops.create(1, true);
    clientLoops = TransportEventLoops.create(1, true);
    Versioned value = new Versioned(new byte[512], new Version(1, 1));
    CompletableFuture<OperationResponse> answer =
        CompletableFuture.completedFuture(
            new OperationResponse.Completed(new Outcome.ReadResult(Optional.of(value))));
    server =
        ClientProtocolServer.start(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            request -> answer,
            config,
            serverLoops);
    shared = ClientProtocolClient.connect(server.localAddress(), config, clientLoops);
    direct = new CallerThreadClient(server.localAddress(), config, 1024, 1024);
    get =
        new OperationRequest(
            new Operation.Get(Key.of("key-0000000000".getBytes(StandardCharsets.US_ASCII))), 0);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    direct.close();
    shared.close();
    server.close();
    clientLoops.close();
    serverLoops.close();
  }

  @Benchmark
  public OperationResponse syncGet() {
    if (path.equals("direct")) {
      return direct.callIfConnectionFree(get, TIMEOUT);
    }
    return shared.call(get, TIMEOUT).join();
  }
}
