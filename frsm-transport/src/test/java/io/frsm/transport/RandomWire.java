package io.frsm.transport;

import io.frsm.api.Version;
import io.frsm.api.Versioned;
import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import io.frsm.cell.Key;
import io.frsm.cell.PurgeMark;
import io.frsm.client.transport.ClientOperation;
import io.frsm.client.transport.ClientOutcome;
import io.frsm.client.transport.KeyBytes;
import io.frsm.client.transport.OperationRequest;
import io.frsm.client.transport.OperationResponse;
import io.frsm.consensus.core.InputBounds;
import io.frsm.consensus.core.Message;
import io.frsm.consensus.core.RangeTerm;
import io.frsm.consensus.core.RoundId;
import io.frsm.consensus.core.TermRecord;
import java.util.Optional;
import java.util.Random;

/** Random valid messages, requests and responses, including edge values, from one seed. */
final class RandomWire {
  private final Random random;

  RandomWire(long seed) {
    this.random = new Random(seed);
  }

  Message message() {
    Key key = key();
    return switch (random.nextInt(15)) {
      case 0 -> new Message.Prepare(key, roundId(), realBallot(), term(), ringVersion());
      case 1 -> new Message.Promise(key, roundId(), realBallot(), ballot(), acceptedOrNull());
      case 2 -> new Message.Accept(key, roundId(), accepted(false), term(), ringVersion());
      case 3 -> new Message.Accepted(key, roundId(), realBallot(), instance(), instance());
      case 4 -> new Message.Reject(key, roundId(), ballot(), ballot(), acceptedOrNull());
      case 5 -> new Message.Read(key, roundId(), ringVersion());
      case 6 -> new Message.ReadReply(key, roundId(), ballot(), acceptedOrNull());
      case 7 -> {
        int range = random.nextInt(64);
        yield new Message.TermPersist(
            RangeTerm.cellKey(range),
            roundId(),
            range,
            1 + term(),
            ringVersion(),
            random.nextBoolean() ? 0 : 1 + random.nextInt(1 << 20));
      }
      case 8 -> {
        long term = 1 + term();
        yield new Message.TermPersisted(
            key,
            roundId(),
            term,
            term < 2 || random.nextBoolean()
                ? null
                : new TermRecord(
                    1 + random.nextLong(term - 1),
                    random.nextInt(64),
                    random.nextInt(1000),
                    1 + random.nextInt(1 << 20)));
      }
      case 9 -> new Message.StaleTerm(key, roundId(), term());
      case 10 ->
          new Message.Purge(key, new PurgeMark(instance(), instance(), instance()), ringVersion());
      case 11 -> {
        int range = random.nextInt(64);
        Key after = random.nextBoolean() ? null : key();
        long pivot = after != null ? after.token() : random.nextLong();
        long from = random.nextBoolean() ? Long.MIN_VALUE : pivot;
        long to = random.nextBoolean() ? Long.MAX_VALUE : pivot;
        yield new Message.ListKeys(
            RangeTerm.cellKey(range),
            roundId(),
            range,
            term(), // 0: a membership settle's listing
            from,
            to,
            after,
            1 + random.nextInt(2048),
            ringVersion());
      }
      case 12 -> {
        java.util.List<Key> keys = new java.util.ArrayList<>();
        for (int i = random.nextInt(5); i > 0; i--) {
          keys.add(key());
        }
        yield new Message.KeysListed(key, roundId(), keys, !keys.isEmpty() && random.nextBoolean());
      }
      case 13 -> new Message.StaleRing(key, roundId(), ringVersion());
      default -> new Message.Commit(key, accepted(true));
    };
  }

  /** A ring version: 0 (a cluster that never changed) half the time, else anything in bounds. */
  private long ringVersion() {
    return random.nextBoolean() ? 0 : instance();
  }

  private long term() {
    return random.nextBoolean() ? 0 : instance() / 2;
  }

  OperationRequest request() {
    KeyBytes key = KeyBytes.wrap(bytes(1, 24));
    ClientOperation op =
        switch (random.nextInt(5)) {
          case 0 -> new ClientOperation.Get(key, random.nextBoolean());
          case 1 -> new ClientOperation.Create(key, bytes(0, 40), hint());
          case 2 -> new ClientOperation.Cas(key, expectedVersion(), bytes(0, 40), hint());
          case 3 -> new ClientOperation.Delete(key, expectedVersion(), hint());
          default -> new ClientOperation.Fence(key);
        };
    return new OperationRequest(op, random.nextBoolean() ? 0 : instance());
  }

  /** An idempotency hint, or none (half the time). */
  private ClientOperation.Hint hint() {
    if (random.nextBoolean()) {
      return null;
    }
    byte[] token = new byte[ClientOperation.Hint.TOKEN_BYTES];
    random.nextBytes(token);
    return new ClientOperation.Hint(token, random.nextBoolean());
  }

  private io.frsm.cell.IdempotencyToken token() {
    return random.nextBoolean()
        ? null
        : new io.frsm.cell.IdempotencyToken(random.nextLong(), random.nextLong());
  }

  /** What a CAS or delete may expect: its write lands at timestamp + 1, within the bound. */
  private Version expectedVersion() {
    Version v = version();
    return new Version(v.epoch(), Math.min(v.timestamp(), InputBounds.MAX_NUMBER - 1));
  }

  OperationResponse response() {
    return switch (random.nextInt(9)) {
      case 0 -> completed(new ClientOutcome.ReadResult(maybeVersioned()));
      case 1 -> completed(new ClientOutcome.Written(version()));
      case 2 -> completed(new ClientOutcome.Deleted(version()));
      case 3 -> completed(new ClientOutcome.Exists(versioned()));
      case 4 -> completed(new ClientOutcome.Mismatch(version(), maybeVersioned()));
      case 5 -> completed(new ClientOutcome.Unknown("round timed out " + random.nextInt()));
      case 6 -> completed(new ClientOutcome.NotExecuted("τ + T passed " + random.nextInt()));
      case 7 -> new OperationResponse.Invalid("empty key " + random.nextInt());
      default ->
          new OperationResponse.Redirect("node-" + random.nextInt(9), 1 + random.nextInt(65_535));
    };
  }

  private static OperationResponse completed(ClientOutcome outcome) {
    return new OperationResponse.Completed(outcome);
  }

  Key key() {
    return Key.wrap(bytes(1, 24));
  }

  byte[] bytes(int min, int max) {
    byte[] b = new byte[min + random.nextInt(max - min + 1)];
    random.nextBytes(b);
    return b;
  }

  /** An epoch, timestamp or round: anything the decoders accept, both ends included. */
  long instance() {
    return switch (random.nextInt(4)) {
      case 0 -> 0;
      case 1 -> InputBounds.MAX_NUMBER;
      default -> random.nextLong() & InputBounds.MAX_NUMBER; // 2^62 - 1: a mask
    };
  }

  int nonNegativeInt() {
    return random.nextBoolean() ? random.nextInt(8) : random.nextInt() & Integer.MAX_VALUE;
  }

  RoundId roundId() {
    return new RoundId(nonNegativeInt(), nonNegativeInt(), instance());
  }

  Ballot realBallot() {
    long round = random.nextBoolean() ? 1 + random.nextInt(1000) : Math.max(1, instance());
    return new Ballot(round, nonNegativeInt(), nonNegativeInt());
  }

  Ballot ballot() {
    return random.nextInt(4) == 0 ? Ballot.NONE : realBallot();
  }

  AcceptedValue accepted(boolean chosen) {
    if (random.nextInt(4) == 0) {
      return AcceptedValue.delete(instance(), instance(), realBallot(), chosen, token());
    }
    return AcceptedValue.live(instance(), instance(), realBallot(), bytes(0, 64), chosen, token());
  }

  AcceptedValue acceptedOrNull() {
    return random.nextInt(3) == 0 ? null : accepted(random.nextBoolean());
  }

  Version version() {
    return new Version(instance(), instance());
  }

  Versioned versioned() {
    return new Versioned(bytes(0, 64), version());
  }

  Optional<Versioned> maybeVersioned() {
    return random.nextBoolean() ? Optional.empty() : Optional.of(versioned());
  }
}
