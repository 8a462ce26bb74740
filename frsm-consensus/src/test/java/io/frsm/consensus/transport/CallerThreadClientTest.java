package io.frsm.consensus.transport;

import static io.frsm.consensus.transport.WireTesting.CLUSTER;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.NotExecutedException;
import io.frsm.api.OutcomeUnknownException;
import io.frsm.api.Version;
import io.frsm.consensus.core.Operation;
import io.frsm.consensus.core.Outcome;
import io.frsm.consensus.transport.proto.ClientEnvelope;
import io.frsm.lsm.cell.Key;
import java.io.DataInputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The caller-thread client over loopback against the real server: each thread's response is its
 * own, connections are reused and bounded, and every failure is typed as the multiplexed client
 * types it.
 */
class CallerThreadClientTest {
  private static final Duration LONG = Duration.ofSeconds(10);
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final InetSocketAddress LOOPBACK =
      new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

  private final TransportConfig config = TransportConfig.builder(CLUSTER).build();
  private final TransportEventLoops loops = TransportEventLoops.create(2, true);
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final ExecutorService threads = Executors.newCachedThreadPool();

  @AfterEach
  void stop() throws Exception {
    threads.shutdownNow();
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
    loops.close();
    assertTrue(threads.awaitTermination(10, TimeUnit.SECONDS), "test threads ended");
  }

  private ClientProtocolServer server(ClientProtocolServer.OperationHandler handler) {
    return server(LOOPBACK, handler);
  }

  private ClientProtocolServer server(
      InetSocketAddress address, ClientProtocolServer.OperationHandler handler) {
    ClientProtocolServer server = ClientProtocolServer.start(address, handler, config, loops);
    closeables.add(server);
    return server;
  }

  private CallerThreadClient client(InetSocketAddress server, int maxConnections) {
    CallerThreadClient client =
        new CallerThreadClient(server, config, maxConnections, Math.min(4, maxConnections));
    closeables.add(client);
    return client;
  }

  private static Key key(String k) {
    return Key.of(k.getBytes());
  }

  private static OperationRequest cas(long tau) {
    return new OperationRequest(
        new Operation.Cas(key("a"), new Version(1, 1), new byte[] {1}), tau);
  }

  private static OperationRequest get() {
    return new OperationRequest(new Operation.Get(key("a")), 0);
  }

  /** Answers every request with version (τ, 1): each caller can tell its own response. */
  private static CompletableFuture<OperationResponse> echoTau(OperationRequest request) {
    return CompletableFuture.completedFuture(written(request.invokedAtMicros()));
  }

  private static OperationResponse written(long epoch) {
    return new OperationResponse.Completed(new Outcome.Written(new Version(epoch, 1)));
  }

  @Test
  void concurrentCallers_getTheirOwnResponses_andReuseTheirConnections() throws Exception {
    CallerThreadClient client = client(server(CallerThreadClientTest::echoTau).localAddress(), 4);
    int callers = 4;
    int callsEach = 300;
    List<Future<?>> done = new ArrayList<>();
    for (int t = 0; t < callers; t++) {
      int thread = t;
      done.add(
          threads.submit(
              () -> {
                for (int i = 0; i < callsEach; i++) {
                  long tau = thread * 1_000_000L + i;
                  assertEquals(written(tau), client.callIfConnectionFree(cas(tau), LONG));
                }
                return null;
              }));
    }
    for (Future<?> f : done) {
      f.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }
    assertTrue(
        client.openConnections() >= 1 && client.openConnections() <= callers,
        "at most one connection per concurrent caller, was " + client.openConnections());
    assertEquals(client.openConnections(), client.idleConnections(), "all returned to the pool");
    // One thread calling again and again uses one connection.
    CallerThreadClient single = client(client.server(), 4);
    for (int i = 0; i < 50; i++) {
      assertEquals(written(i), single.callIfConnectionFree(cas(i), LONG));
    }
    assertEquals(1, single.openConnections());
  }

  @Test
  void noResponseBeforeTheTimeout_mutationIsOutcomeUnknown_getIsNotExecuted() {
    CallerThreadClient client = client(server(r -> new CompletableFuture<>()).localAddress(), 4);
    Duration shortTimeout = Duration.ofMillis(150);
    OutcomeUnknownException unknown =
        assertThrows(
            OutcomeUnknownException.class, () -> client.callIfConnectionFree(cas(1), shortTimeout));
    assertTrue(unknown.getMessage().contains("no response within 150 ms"), unknown.getMessage());
    assertThrows(
        NotExecutedException.class, () -> client.callIfConnectionFree(get(), shortTimeout));
    assertEquals(0, client.openConnections(), "a connection whose call was lost is closed");
  }

  @Test
  void aLateResponse_isNeverReadAsTheNextCallsResponse() {
    CountDownLatch answerFirst = new CountDownLatch(1);
    CallerThreadClient client =
        client(
            server(
                    r ->
                        r.invokedAtMicros() == 1
                            ? CompletableFuture.supplyAsync(
                                () -> {
                                  awaitQuietly(answerFirst);
                                  return written(1);
                                })
                            : echoTau(r))
                .localAddress(),
            1);
    assertThrows(
        OutcomeUnknownException.class,
        () -> client.callIfConnectionFree(cas(1), Duration.ofMillis(100)));
    answerFirst.countDown(); // the first response now arrives, on the closed connection
    for (int i = 2; i < 20; i++) {
      assertEquals(written(i), client.callIfConnectionFree(cas(i), LONG));
    }
  }

  @Test
  void unreachableNode_isNotExecuted() throws Exception {
    InetSocketAddress nobody;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      nobody = (InetSocketAddress) s.getLocalSocketAddress();
    }
    CallerThreadClient client = client(nobody, 4);
    assertThrows(NotExecutedException.class, () -> client.callIfConnectionFree(cas(1), LONG));
    assertEquals(0, client.openConnections());
  }

  @Test
  void atTheConnectionLimit_returnsNull_withoutSending() throws Exception {
    AtomicInteger handled = new AtomicInteger();
    CompletableFuture<OperationResponse> held = new CompletableFuture<>();
    CallerThreadClient client =
        client(
            server(
                    r -> {
                      handled.incrementAndGet();
                      return r.invokedAtMicros() == 1 ? held : echoTau(r);
                    })
                .localAddress(),
            1);
    Future<OperationResponse> first =
        threads.submit(() -> client.callIfConnectionFree(cas(1), LONG));
    Await.until(() -> handled.get() == 1, WAIT, "the first call at the node");
    assertNull(client.callIfConnectionFree(cas(2), LONG), "the only connection is in use");
    held.complete(written(1));
    assertEquals(written(1), first.get(WAIT.toSeconds(), TimeUnit.SECONDS));
    assertEquals(1, handled.get(), "the refused call was never sent");
    assertEquals(written(3), client.callIfConnectionFree(cas(3), LONG));
  }

  @Test
  void aConnectionTheNodeClosed_isDroppedBeforeUse_soTheNextMutationIsNotUnknown()
      throws Exception {
    ClientProtocolServer first = server(CallerThreadClientTest::echoTau);
    InetSocketAddress address = first.localAddress();
    CallerThreadClient client = client(address, 4);
    assertEquals(written(1), client.callIfConnectionFree(cas(1), LONG));
    assertEquals(1, client.idleConnections());
    first.close(); // the node stops: its end of the idle connection closes
    Await.until(() -> client.idleClosedByNode() == 1, WAIT, "the idle connection seen closed");
    server(address, CallerThreadClientTest::echoTau); // the node is back on its port
    // Borrowing drops the closed connection and dials a new one: the CAS is not lost on it.
    assertEquals(written(2), client.callIfConnectionFree(cas(2), LONG));
    assertEquals(1, client.openConnections());
  }

  @Test
  void usable_isFalseOnceTheNodeClosedTheConnection() throws Exception {
    try (ServerSocket node = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      CallerThreadConnection connection =
          CallerThreadConnection.dial(
              (InetSocketAddress) node.getLocalSocketAddress(),
              new ClientCodec(CLUSTER, ClientCodec.Side.CLIENT),
              config.maxFrameBytes(),
              System.nanoTime() + LONG.toNanos());
      try (Socket accepted = node.accept()) {
        assertTrue(connection.usable(), "open and quiet");
      }
      Await.until(() -> !connection.usable(), WAIT, "end of stream seen");
      assertTrue(!connection.isOpen(), "an unusable connection closes itself");
    }
  }

  @Test
  void anOversizedRequest_isNotExecuted_andKeepsItsConnection() {
    TransportConfig small = TransportConfig.builder(CLUSTER).maxFrameBytes(512).build();
    InetSocketAddress address = server(CallerThreadClientTest::echoTau).localAddress();
    CallerThreadClient client = new CallerThreadClient(address, small, 2, 2);
    closeables.add(client);
    assertEquals(written(1), client.callIfConnectionFree(cas(1), LONG));
    OperationRequest big =
        new OperationRequest(new Operation.Cas(key("a"), new Version(1, 1), new byte[600]), 2);
    NotExecutedException e =
        assertThrows(NotExecutedException.class, () -> client.callIfConnectionFree(big, LONG));
    assertTrue(e.getMessage().contains("maxFrameBytes"), e.getMessage());
    assertEquals(1, client.openConnections());
    assertEquals(written(3), client.callIfConnectionFree(cas(3), LONG));
    assertEquals(1, client.openConnections(), "the same connection served on");
  }

  @Test
  void closingTheClient_endsACallInProgress_asLost_andRefusesLaterCalls() throws Exception {
    CountDownLatch arrived = new CountDownLatch(1);
    CallerThreadClient client =
        client(
            server(
                    r -> {
                      arrived.countDown();
                      return new CompletableFuture<>(); // never answers
                    })
                .localAddress(),
            4);
    Future<OperationResponse> inFlight =
        threads.submit(() -> client.callIfConnectionFree(cas(1), Duration.ofMinutes(5)));
    assertTrue(arrived.await(WAIT.toSeconds(), TimeUnit.SECONDS));
    client.close();
    var failure =
        assertThrows(
            java.util.concurrent.ExecutionException.class,
            () -> inFlight.get(WAIT.toSeconds(), TimeUnit.SECONDS));
    assertInstanceOf(OutcomeUnknownException.class, failure.getCause());
    assertThrows(NotExecutedException.class, () -> client.callIfConnectionFree(cas(2), LONG));
    Await.until(() -> client.openConnections() == 0, WAIT, "every connection closed");
  }

  @Test
  void anInterruptedCaller_failsItsCall_andKeepsItsInterrupt() throws Exception {
    CountDownLatch arrived = new CountDownLatch(1);
    CallerThreadClient client =
        client(
            server(
                    r -> {
                      arrived.countDown();
                      return new CompletableFuture<>();
                    })
                .localAddress(),
            4);
    AtomicReference<Throwable> thrown = new AtomicReference<>();
    AtomicReference<Boolean> interrupted = new AtomicReference<>();
    Thread caller =
        new Thread(
            () -> {
              try {
                client.callIfConnectionFree(cas(1), Duration.ofMinutes(5));
              } catch (RuntimeException e) {
                thrown.set(e);
              }
              interrupted.set(Thread.currentThread().isInterrupted());
            });
    caller.start();
    assertTrue(arrived.await(WAIT.toSeconds(), TimeUnit.SECONDS));
    caller.interrupt();
    caller.join(WAIT.toMillis());
    assertInstanceOf(OutcomeUnknownException.class, thrown.get());
    assertEquals(Boolean.TRUE, interrupted.get());
    assertEquals(0, client.openConnections());
  }

  @Test
  void aResponseNamingAnotherRequest_failsTheCall_andClosesTheConnection() throws Exception {
    try (ServerSocket node = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      CallerThreadClient client = client((InetSocketAddress) node.getLocalSocketAddress(), 4);
      Future<OperationResponse> call =
          threads.submit(() -> client.callIfConnectionFree(cas(1), LONG));
      try (Socket accepted = node.accept()) {
        DataInputStream in = new DataInputStream(accepted.getInputStream());
        byte[] request = new byte[in.readInt()];
        in.readFully(request);
        ClientEnvelope wrong =
            new ClientCodec(CLUSTER, ClientCodec.Side.SERVER).encodeResponse(999, written(1));
        accepted.getOutputStream().write(WireTesting.frame(wrong));
        var failure =
            assertThrows(
                java.util.concurrent.ExecutionException.class,
                () -> call.get(WAIT.toSeconds(), TimeUnit.SECONDS));
        assertInstanceOf(OutcomeUnknownException.class, failure.getCause());
        assertTrue(failure.getCause().getMessage().contains("999"), failure.getMessage());
      }
      assertEquals(0, client.openConnections());
    }
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
