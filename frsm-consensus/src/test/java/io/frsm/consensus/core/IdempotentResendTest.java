package io.frsm.consensus.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.Version;
import io.frsm.api.Versioned;
import io.frsm.cell.IdempotencyToken;
import io.frsm.cell.Key;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The answer rules of docs/PROTOCOL.md "Idempotent resends" on the quorum path (leases off): a
 * resend whose value is the key's newest is answered written, completed first where it was only
 * accepted; a resend that finds the key moved on under another value is answered unknown, never a
 * mismatch; a first attempt keeps today's answers.
 */
class IdempotentResendTest {
  private static final Key K = Key.of("idem".getBytes(StandardCharsets.US_ASCII));
  private static final IdempotencyToken X = new IdempotencyToken(0x1234, 0x5678);
  private static final IdempotencyToken Y = new IdempotencyToken(0x9999, 0x1);

  private CoreCluster cluster;

  @BeforeEach
  void setUp() {
    cluster = new CoreCluster(3, CoreConfig.defaults(List.of(0, 1, 2)));
  }

  private Outcome run(int node, Operation op) {
    long id = cluster.submit(node, op);
    for (int i = 0; i < 10_000 && cluster.outcome(id) == null; i++) {
      cluster.advance(CoreConfig.DEFAULT_ROUND_TIMEOUT.toNanos() / 10);
    }
    assertNotNull(cluster.outcome(id), "no answer");
    return cluster.outcome(id);
  }

  private Version create(String value) {
    return assertInstanceOf(Outcome.Written.class, run(0, new Operation.Create(K, b(value))))
        .version();
  }

  private static IdempotencyHint first(IdempotencyToken t) {
    return new IdempotencyHint(t, false);
  }

  private static IdempotencyHint resend(IdempotencyToken t) {
    return new IdempotencyHint(t, true);
  }

  @Test
  void resend_ofAWriteThatTookEffect_isAnsweredWritten_withoutWritingAgain() {
    Version v = create("a");
    assertEquals(new Outcome.Written(v.next()), run(0, new Operation.Cas(K, v, b("b"), first(X))));
    assertEquals(new Outcome.Written(v.next()), run(1, new Operation.Cas(K, v, b("b"), resend(X))));
    assertEquals(
        new Outcome.ReadResult(Optional.of(new Versioned(b("b"), v.next()))),
        run(2, new Operation.Get(K)));
    assertEquals(X, cluster.cell(2, K).accepted().token(), "stored with the value");
  }

  @Test
  void resend_afterAnotherWriterMovedTheKey_isUnknown_butAFirstAttemptIsAMismatch() {
    Version v = create("a");
    assertEquals(new Outcome.Written(v.next()), run(0, new Operation.Cas(K, v, b("b"), first(X))));
    assertInstanceOf(
        Outcome.Written.class, run(1, new Operation.Cas(K, v.next(), b("c"), first(Y))));
    Outcome.Unknown superseded =
        assertInstanceOf(Outcome.Unknown.class, run(2, new Operation.Cas(K, v, b("b"), resend(X))));
    assertTrue(superseded.reason().startsWith("superseded"), superseded.reason());
    assertInstanceOf(Outcome.Mismatch.class, run(2, new Operation.Cas(K, v, b("b"), first(X))));
  }

  @Test
  void resend_ofAWriteThatNeverHappened_runsIt() {
    Version v = create("a");
    assertEquals(new Outcome.Written(v.next()), run(1, new Operation.Cas(K, v, b("b"), resend(X))));
  }

  /**
   * Node 0's CAS is accepted by itself and node 1 but never known chosen (node 1's ack and every
   * accept to node 2 are lost), so node 0 answers unknown. The resend goes to node 2: its prepare
   * finds the value with the token, completes it under its own ballot and answers written. The
   * token must survive the promise and the re-commit for this.
   */
  @Test
  void resend_toANewCoordinator_completesTheAcceptedValue_andAnswersWritten() {
    Version v = create("a");
    cluster.drop =
        (from, to, m) ->
            (m instanceof Message.Accept && to == 2)
                || (m instanceof Message.Accepted && from == 1);
    Outcome firstTry = run(0, new Operation.Cas(K, v, b("b"), first(X)));
    assertInstanceOf(Outcome.Unknown.class, firstTry);
    assertEquals(X, cluster.cell(1, K).accepted().token());
    cluster.drop = (from, to, m) -> false;
    assertEquals(new Outcome.Written(v.next()), run(2, new Operation.Cas(K, v, b("b"), resend(X))));
    assertEquals(X, cluster.cell(2, K).accepted().token(), "re-committed with its token");
    assertEquals(
        new Outcome.ReadResult(Optional.of(new Versioned(b("b"), v.next()))),
        run(1, new Operation.Get(K)));
  }

  @Test
  void deleteResend_afterItTookEffect_isAnsweredDeleted() {
    Version v = create("a");
    assertEquals(new Outcome.Deleted(v.next()), run(0, new Operation.Delete(K, v, first(X))));
    assertEquals(new Outcome.Deleted(v.next()), run(1, new Operation.Delete(K, v, resend(X))));
  }

  @Test
  void createResend_isAnsweredWritten_orUnknownOnceTheKeyMoved() {
    Version created =
        assertInstanceOf(Outcome.Written.class, run(0, new Operation.Create(K, b("a"), first(X))))
            .version();
    assertEquals(new Outcome.Written(created), run(1, new Operation.Create(K, b("a"), resend(X))));
    assertInstanceOf(
        Outcome.Written.class, run(2, new Operation.Cas(K, created, b("c"), first(Y))));
    assertInstanceOf(Outcome.Unknown.class, run(1, new Operation.Create(K, b("a"), resend(X))));
    assertInstanceOf(Outcome.Exists.class, run(1, new Operation.Create(K, b("a"), first(X))));
  }

  @Test
  void createResend_ofADeletedKey_isUnknown_itMayHaveBeenCreatedAndDeleted() {
    Version v = create("a");
    assertInstanceOf(Outcome.Deleted.class, run(0, new Operation.Delete(K, v)));
    assertInstanceOf(Outcome.Unknown.class, run(1, new Operation.Create(K, b("z"), resend(X))));
    assertInstanceOf(Outcome.Written.class, run(1, new Operation.Create(K, b("z"), first(X))));
  }

  @Test
  void createResend_ofANeverCreatedKey_createsIt() {
    assertInstanceOf(Outcome.Written.class, run(1, new Operation.Create(K, b("z"), resend(X))));
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
