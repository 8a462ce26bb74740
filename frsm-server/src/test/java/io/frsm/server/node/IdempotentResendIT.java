package io.frsm.server.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.FrsmClient;
import io.frsm.api.Version;
import io.frsm.api.Versioned;
import io.frsm.cell.IdempotencyToken;
import io.frsm.cell.Key;
import io.frsm.client.transport.ClientOutcome;
import io.frsm.client.transport.ClientProtocolClient;
import io.frsm.client.transport.OperationRequest;
import io.frsm.client.transport.OperationResponse;
import io.frsm.client.transport.TransportConfig;
import io.frsm.client.transport.TransportEventLoops;
import io.frsm.client.transport.tls.MutualTls;
import io.frsm.client.transport.tls.TlsContexts;
import io.frsm.client.transport.tls.TlsFiles;
import io.frsm.consensus.core.IdempotencyHint;
import io.frsm.consensus.core.Operation;
import io.frsm.transport.CoreOperations;
import io.netty.handler.ssl.SslProvider;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Idempotent resends (docs/PROTOCOL.md "Idempotent resends") through three real nodes, over the
 * client protocol as any program can send it: a tokened CAS whose answer the caller never saw (the
 * test drops it: an unknown outcome) is resent with the same token — to the leader, and after the
 * leader stopped, to the node that leads the key next — and answered "written" at the version the
 * first attempt wrote, without writing again. A resend after another writer moved the key is
 * answered unknown, a first attempt a mismatch. Then the public API: {@code
 * FrsmClient.idempotent()}.
 */
class IdempotentResendIT {
  private static final Duration DEADLINE = Duration.ofSeconds(60);
  private static final IdempotencyToken X = new IdempotencyToken(0x1D3, 0xE5);
  private static final IdempotencyToken Y = new IdempotencyToken(0x77, 0x78);

  @Test
  void aResendAfterALostAnswer_isAnsweredWritten_atTheLeaderAndAtTheNextOne(@TempDir Path dir)
      throws Exception {
    try (TestCluster cluster = new TestCluster(dir)) {
      FrsmClient client = cluster.thinClient();
      byte[] key = bytes("idem/resend");
      Version v = client.create(key, bytes("0"));
      Operation.Cas first = new Operation.Cas(Key.of(key), v, bytes("1"), hint(X, false));
      Operation.Cas resend = new Operation.Cas(Key.of(key), v, bytes("1"), hint(X, true));

      Served firstTry = callLeader(cluster, first, Set.of());
      // The test drops this answer: to the caller the outcome is unknown. It resends.
      assertEquals(new ClientOutcome.Written(v.next()), firstTry.outcome());
      assertEquals(
          new ClientOutcome.Written(v.next()), callLeader(cluster, resend, Set.of()).outcome());
      assertEquals(
          Optional.of(new Versioned(bytes("1"), v.next())), client.get(key), "written once");

      // The leader goes (a graceful stop hands its ranges on): the next leader knows the token
      // from the value it holds, replicated with it.
      cluster.node(firstTry.node()).close();
      Set<Integer> stopped = Set.of(firstTry.node());
      Served again = callLeader(cluster, resend, stopped);
      assertEquals(new ClientOutcome.Written(v.next()), again.outcome());
      assertTrue(again.node() != firstTry.node());

      // Another writer moves the key on: a resend can no longer tell, a first attempt can.
      Operation.Cas other = new Operation.Cas(Key.of(key), v.next(), bytes("2"), hint(Y, false));
      assertEquals(
          new ClientOutcome.Written(v.next().next()),
          callLeader(cluster, other, stopped).outcome());
      ClientOutcome.Unknown superseded =
          assertInstanceOf(
              ClientOutcome.Unknown.class, callLeader(cluster, resend, stopped).outcome());
      assertTrue(superseded.reason().startsWith("superseded"), superseded.reason());
      assertInstanceOf(ClientOutcome.Mismatch.class, callLeader(cluster, first, stopped).outcome());
    }
  }

  @Test
  void theIdempotentClient_writesAsAnyClient_andReadsNeverSeeTheToken(@TempDir Path dir)
      throws Exception {
    try (TestCluster cluster = new TestCluster(dir)) {
      FrsmClient idempotent = cluster.thinClient().idempotent();
      byte[] key = bytes("idem/api");
      Version v = idempotent.create(key, bytes("a"));
      Version w = idempotent.cas(key, v, bytes("b"));
      assertEquals(v.next(), w);
      Versioned read = idempotent.get(key).orElseThrow();
      assertArrayEquals(bytes("b"), read.value(), "the value only, never the token");
      idempotent.delete(key, w);
      assertEquals(Optional.empty(), idempotent.get(key));
    }
  }

  private record Served(int node, ClientOutcome outcome) {}

  /**
   * Sends {@code op} to the node that leads its key now (the others redirect, or answer not
   * executed while the range has no leader), skipping {@code stopped}.
   */
  private static Served callLeader(TestCluster cluster, Operation op, Set<Integer> stopped) {
    Served[] served = {null};
    Set<String> tried = new HashSet<>();
    Await.until(
        () -> {
          for (int id = 1; id <= cluster.size() && served[0] == null; id++) {
            if (stopped.contains(id)) {
              continue;
            }
            OperationResponse r = rawCall(cluster, id, op);
            if (r instanceof OperationResponse.Completed c
                && !(c.outcome() instanceof ClientOutcome.NotExecuted)) {
              served[0] = new Served(id, c.outcome());
            } else {
              tried.add(id + ": " + r);
            }
          }
          return served[0] != null;
        },
        DEADLINE,
        "a node to serve " + op + " (tried " + tried + ")");
    return served[0];
  }

  private static OperationResponse rawCall(TestCluster cluster, int id, Operation op) {
    try {
      return rawCallOrThrow(cluster, id, op);
    } catch (Exception e) {
      throw new IllegalStateException("call to node " + id + " failed", e);
    }
  }

  private static OperationResponse rawCallOrThrow(TestCluster cluster, int id, Operation op)
      throws Exception {
    TransportConfig config = TransportConfig.builder(TestCluster.CLUSTER_ID).build();
    TlsFiles admin = cluster.tls().admin();
    MutualTls tls =
        new MutualTls(
            TlsContexts.load(admin, SslProvider.JDK, Duration.ofMinutes(1)),
            TestCluster.CLUSTER_ID,
            DEADLINE);
    try (TransportEventLoops loops = TransportEventLoops.create(1, true);
        ClientProtocolClient client =
            ClientProtocolClient.connect(cluster.node(id).clientAddress(), config, loops, tls)) {
      return client
          .call(new OperationRequest(CoreOperations.toClient(op), 0), DEADLINE)
          .get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
    }
  }

  private static IdempotencyHint hint(IdempotencyToken token, boolean resend) {
    return new IdempotencyHint(token, resend);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(UTF_8);
  }
}
