package io.frsm.transport;

import static io.frsm.transport.WireValues.acceptedValue;
import static io.frsm.transport.WireValues.acceptedValueOrNone;
import static io.frsm.transport.WireValues.ballot;
import static io.frsm.transport.WireValues.ballotOrNone;
import static io.frsm.transport.WireValues.instanceField;
import static io.frsm.transport.WireValues.key;
import static io.frsm.transport.WireValues.realBallot;
import static io.frsm.transport.WireValues.requiredAcceptedValue;
import static io.frsm.transport.WireValues.roundId;

import io.frsm.cell.AcceptedValue;
import io.frsm.cell.PurgeMark;
import io.frsm.client.transport.WireDecodeException;
import io.frsm.consensus.core.Message;
import io.frsm.consensus.core.TermRecord;
import io.frsm.transport.proto.PeerEnvelope;

/**
 * Maps the consensus core's {@link Message} records to the body of a {@code PeerEnvelope} and back.
 *
 * <p>One pair of methods per message type: adding a message to the core means adding a protobuf
 * message and a {@code body} field in peer.proto, one branch in {@link #toBody} and one case in
 * {@link #fromEnvelope}. {@code PeerMessagesTest.everyMessageType_hasAWireMapping} fails until both
 * exist.
 *
 * <p>The node itself writes and reads peer envelopes with {@link PeerBodyWriter} and {@link
 * PeerBodyReader}, which must learn the message too; this mapping is their reference ({@code
 * DirectPeerEnvelopeTest} fails until the writer and its edge cases cover every message type,
 * {@code PeerEnvelopeReaderTest} compares the reader with it).
 */
final class PeerMessages {
  private PeerMessages() {}

  /** Sets {@code message} as the envelope's body. */
  static PeerEnvelope.Builder toBody(Message message, PeerEnvelope.Builder envelope) {
    if (message instanceof Message.Prepare m) {
      return envelope.setPrepare(prepare(m));
    } else if (message instanceof Message.Promise m) {
      return envelope.setPromise(promise(m));
    } else if (message instanceof Message.Accept m) {
      return envelope.setAccept(accept(m));
    } else if (message instanceof Message.Accepted m) {
      return envelope.setAccepted(accepted(m));
    } else if (message instanceof Message.Reject m) {
      return envelope.setReject(reject(m));
    } else if (message instanceof Message.Read m) {
      return envelope.setRead(read(m));
    } else if (message instanceof Message.ReadReply m) {
      return envelope.setReadReply(readReply(m));
    } else if (message instanceof Message.Commit m) {
      return envelope.setCommit(commit(m));
    } else if (message instanceof Message.TermPersist m) {
      return envelope.setTermPersist(termPersist(m));
    } else if (message instanceof Message.TermPersisted m) {
      return envelope.setTermPersisted(termPersisted(m));
    } else if (message instanceof Message.StaleTerm m) {
      return envelope.setStaleTerm(staleTerm(m));
    } else if (message instanceof Message.Purge m) {
      return envelope.setPurge(purge(m));
    } else if (message instanceof Message.ListKeys m) {
      return envelope.setListKeys(listKeys(m));
    } else if (message instanceof Message.KeysListed m) {
      return envelope.setKeysListed(keysListed(m));
    } else if (message instanceof Message.StaleRing m) {
      return envelope.setStaleRing(staleRing(m));
    }
    throw new IllegalArgumentException(
        "no wire mapping for " + message.getClass().getName() + ": add it to peer.proto");
  }

  /** The envelope's body as a core message. The envelope's header was checked already. */
  static Message fromEnvelope(PeerEnvelope envelope) throws WireDecodeException {
    try {
      return switch (envelope.getBodyCase()) {
        case PREPARE -> prepare(envelope.getPrepare());
        case PROMISE -> promise(envelope.getPromise());
        case ACCEPT -> accept(envelope.getAccept());
        case ACCEPTED -> accepted(envelope.getAccepted());
        case REJECT -> reject(envelope.getReject());
        case READ -> read(envelope.getRead());
        case READ_REPLY -> readReply(envelope.getReadReply());
        case COMMIT -> commit(envelope.getCommit());
        case TERM_PERSIST -> termPersist(envelope.getTermPersist());
        case TERM_PERSISTED -> termPersisted(envelope.getTermPersisted());
        case STALE_TERM -> staleTerm(envelope.getStaleTerm());
        case PURGE -> purge(envelope.getPurge());
        case LIST_KEYS -> listKeys(envelope.getListKeys());
        case KEYS_LISTED -> keysListed(envelope.getKeysListed());
        case STALE_RING -> staleRing(envelope.getStaleRing());
        case KEEPALIVE ->
            throw new WireDecodeException("a keep-alive carries no message (framing reads it)");
        case BODY_NOT_SET ->
            throw new WireDecodeException("peer envelope without a (known) message body");
      };
    } catch (IllegalArgumentException | NullPointerException e) {
      // The records' own invariants are the last check: whatever they refuse is a bad frame,
      // never an exception for the node to handle.
      throw new WireDecodeException("peer message violates an invariant: " + e.getMessage(), e);
    }
  }

  // ---- Prepare

  private static io.frsm.transport.proto.Prepare prepare(Message.Prepare m) {
    return io.frsm.transport.proto.Prepare.newBuilder()
        .setKey(key(m.key()))
        .setRound(roundId(m.round()))
        .setBallot(ballot(m.ballot()))
        .setTerm(m.term())
        .setRingVersion(m.ringVersion())
        .build();
  }

  private static Message.Prepare prepare(io.frsm.transport.proto.Prepare p)
      throws WireDecodeException {
    return new Message.Prepare(
        key(p.getKey(), "prepare"),
        roundId(p.hasRound(), p.getRound(), "prepare"),
        realBallot(p.hasBallot(), p.getBallot(), "prepare.ballot"),
        instanceField(p.getTerm(), "term", "prepare"),
        instanceField(p.getRingVersion(), "ring_version", "prepare"));
  }

  // ---- Promise

  private static io.frsm.transport.proto.Promise promise(Message.Promise m) {
    var b =
        io.frsm.transport.proto.Promise.newBuilder()
            .setKey(key(m.key()))
            .setRound(roundId(m.round()))
            .setBallot(ballot(m.ballot()));
    if (!m.previous().isNone()) {
      b.setPrevious(ballot(m.previous()));
    }
    if (m.accepted() != null) {
      b.setAccepted(acceptedValue(m.accepted()));
    }
    return b.build();
  }

  private static Message.Promise promise(io.frsm.transport.proto.Promise p)
      throws WireDecodeException {
    return new Message.Promise(
        key(p.getKey(), "promise"),
        roundId(p.hasRound(), p.getRound(), "promise"),
        realBallot(p.hasBallot(), p.getBallot(), "promise.ballot"),
        ballotOrNone(p.hasPrevious(), p.getPrevious(), "promise.previous"),
        acceptedValueOrNone(p.hasAccepted(), p.getAccepted(), "promise.accepted"));
  }

  // ---- Accept

  private static io.frsm.transport.proto.Accept accept(Message.Accept m) {
    return io.frsm.transport.proto.Accept.newBuilder()
        .setKey(key(m.key()))
        .setRound(roundId(m.round()))
        .setProposal(acceptedValue(m.proposal()))
        .setTerm(m.term())
        .setRingVersion(m.ringVersion())
        .build();
  }

  private static Message.Accept accept(io.frsm.transport.proto.Accept p)
      throws WireDecodeException {
    AcceptedValue proposal =
        requiredAcceptedValue(p.hasProposal(), p.getProposal(), "accept.proposal");
    if (proposal.chosen()) {
      throw new WireDecodeException("accept.proposal is marked chosen");
    }
    return new Message.Accept(
        key(p.getKey(), "accept"),
        roundId(p.hasRound(), p.getRound(), "accept"),
        proposal,
        instanceField(p.getTerm(), "term", "accept"),
        instanceField(p.getRingVersion(), "ring_version", "accept"));
  }

  // ---- Accepted

  private static io.frsm.transport.proto.Accepted accepted(Message.Accepted m) {
    return io.frsm.transport.proto.Accepted.newBuilder()
        .setKey(key(m.key()))
        .setRound(roundId(m.round()))
        .setBallot(ballot(m.ballot()))
        .setEpoch(m.epoch())
        .setTimestamp(m.timestamp())
        .build();
  }

  private static Message.Accepted accepted(io.frsm.transport.proto.Accepted p)
      throws WireDecodeException {
    return new Message.Accepted(
        key(p.getKey(), "accepted"),
        roundId(p.hasRound(), p.getRound(), "accepted"),
        realBallot(p.hasBallot(), p.getBallot(), "accepted.ballot"),
        instanceField(p.getEpoch(), "epoch", "accepted"),
        instanceField(p.getTimestamp(), "timestamp", "accepted"));
  }

  // ---- Reject

  private static io.frsm.transport.proto.Reject reject(Message.Reject m) {
    var b =
        io.frsm.transport.proto.Reject.newBuilder()
            .setKey(key(m.key()))
            .setRound(roundId(m.round()));
    if (!m.ballot().isNone()) {
      b.setBallot(ballot(m.ballot()));
    }
    if (!m.promised().isNone()) {
      b.setPromised(ballot(m.promised()));
    }
    if (m.accepted() != null) {
      b.setAccepted(acceptedValue(m.accepted()));
    }
    return b.build();
  }

  private static Message.Reject reject(io.frsm.transport.proto.Reject p)
      throws WireDecodeException {
    return new Message.Reject(
        key(p.getKey(), "reject"),
        roundId(p.hasRound(), p.getRound(), "reject"),
        ballotOrNone(p.hasBallot(), p.getBallot(), "reject.ballot"),
        ballotOrNone(p.hasPromised(), p.getPromised(), "reject.promised"),
        acceptedValueOrNone(p.hasAccepted(), p.getAccepted(), "reject.accepted"));
  }

  // ---- Read

  private static io.frsm.transport.proto.Read read(Message.Read m) {
    return io.frsm.transport.proto.Read.newBuilder()
        .setKey(key(m.key()))
        .setRound(roundId(m.round()))
        .setRingVersion(m.ringVersion())
        .build();
  }

  private static Message.Read read(io.frsm.transport.proto.Read p) throws WireDecodeException {
    return new Message.Read(
        key(p.getKey(), "read"),
        roundId(p.hasRound(), p.getRound(), "read"),
        instanceField(p.getRingVersion(), "ring_version", "read"));
  }

  // ---- ReadReply

  private static io.frsm.transport.proto.ReadReply readReply(Message.ReadReply m) {
    var b =
        io.frsm.transport.proto.ReadReply.newBuilder()
            .setKey(key(m.key()))
            .setRound(roundId(m.round()));
    if (!m.promised().isNone()) {
      b.setPromised(ballot(m.promised()));
    }
    if (m.accepted() != null) {
      b.setAccepted(acceptedValue(m.accepted()));
    }
    return b.build();
  }

  private static Message.ReadReply readReply(io.frsm.transport.proto.ReadReply p)
      throws WireDecodeException {
    return new Message.ReadReply(
        key(p.getKey(), "read_reply"),
        roundId(p.hasRound(), p.getRound(), "read_reply"),
        ballotOrNone(p.hasPromised(), p.getPromised(), "read_reply.promised"),
        acceptedValueOrNone(p.hasAccepted(), p.getAccepted(), "read_reply.accepted"));
  }

  // ---- Commit

  private static io.frsm.transport.proto.Commit commit(Message.Commit m) {
    return io.frsm.transport.proto.Commit.newBuilder()
        .setKey(key(m.key()))
        .setChosen(acceptedValue(m.chosen()))
        .build();
  }

  private static Message.Commit commit(io.frsm.transport.proto.Commit p)
      throws WireDecodeException {
    AcceptedValue chosen = requiredAcceptedValue(p.hasChosen(), p.getChosen(), "commit.chosen");
    if (!chosen.chosen()) {
      throw new WireDecodeException("commit.chosen is not marked chosen");
    }
    return new Message.Commit(key(p.getKey(), "commit"), chosen);
  }

  // ---- TermPersist, TermPersisted, StaleTerm (range terms: docs/PROTOCOL.md "Leases")

  private static io.frsm.transport.proto.TermPersist termPersist(Message.TermPersist m) {
    return io.frsm.transport.proto.TermPersist.newBuilder()
        .setKey(key(m.key()))
        .setRound(roundId(m.round()))
        .setRange(m.range())
        .setTerm(m.term())
        .setRingVersion(m.ringVersion())
        .setFloorRound(m.floorRound())
        .build();
  }

  private static Message.TermPersist termPersist(io.frsm.transport.proto.TermPersist p)
      throws WireDecodeException {
    if (p.getRange() < 0) {
      throw new WireDecodeException(
          "term_persist: range " + Integer.toUnsignedString(p.getRange()));
    }
    return new Message.TermPersist(
        key(p.getKey(), "term_persist"),
        roundId(p.hasRound(), p.getRound(), "term_persist"),
        p.getRange(),
        instanceField(p.getTerm(), "term", "term_persist"),
        instanceField(p.getRingVersion(), "ring_version", "term_persist"),
        instanceField(p.getFloorRound(), "floor_round", "term_persist"));
  }

  private static io.frsm.transport.proto.TermPersisted termPersisted(Message.TermPersisted m) {
    var b =
        io.frsm.transport.proto.TermPersisted.newBuilder()
            .setKey(key(m.key()))
            .setRound(roundId(m.round()))
            .setTerm(m.term());
    TermRecord r = m.previous();
    if (r != null) {
      b.setPrevious(
          io.frsm.transport.proto.TermRecord.newBuilder()
              .setTerm(r.term())
              .setHolder(r.holder())
              .setBoot(r.boot())
              .setFloorRound(r.floorRound()));
    }
    return b.build();
  }

  private static Message.TermPersisted termPersisted(io.frsm.transport.proto.TermPersisted p)
      throws WireDecodeException {
    long term = instanceField(p.getTerm(), "term", "term_persisted");
    TermRecord previous = null;
    if (p.hasPrevious()) {
      var r = p.getPrevious();
      long previousTerm = instanceField(r.getTerm(), "previous.term", "term_persisted");
      long floor = instanceField(r.getFloorRound(), "previous.floor_round", "term_persisted");
      if (previousTerm < 1
          || previousTerm >= term
          || r.getHolder() < 0
          || r.getBoot() < 0
          || floor < 1) {
        throw new WireDecodeException(
            "term_persisted: previous record ("
                + previousTerm
                + ", "
                + Integer.toUnsignedString(r.getHolder())
                + ", "
                + Integer.toUnsignedString(r.getBoot())
                + ", "
                + floor
                + ") for term "
                + term);
      }
      previous = new TermRecord(previousTerm, r.getHolder(), r.getBoot(), floor);
    }
    return new Message.TermPersisted(
        key(p.getKey(), "term_persisted"),
        roundId(p.hasRound(), p.getRound(), "term_persisted"),
        term,
        previous);
  }

  private static io.frsm.transport.proto.StaleTerm staleTerm(Message.StaleTerm m) {
    return io.frsm.transport.proto.StaleTerm.newBuilder()
        .setKey(key(m.key()))
        .setRound(roundId(m.round()))
        .setTerm(m.term())
        .build();
  }

  private static Message.StaleTerm staleTerm(io.frsm.transport.proto.StaleTerm p)
      throws WireDecodeException {
    return new Message.StaleTerm(
        key(p.getKey(), "stale_term"),
        roundId(p.hasRound(), p.getRound(), "stale_term"),
        instanceField(p.getTerm(), "term", "stale_term"));
  }

  // ---- Purge (delete phase 2)

  private static io.frsm.transport.proto.Purge purge(Message.Purge m) {
    return io.frsm.transport.proto.Purge.newBuilder()
        .setKey(key(m.key()))
        .setEpoch(m.mark().epoch())
        .setTimestamp(m.mark().timestamp())
        .setMarkTimeMs(m.mark().markTimeMs())
        .setRingVersion(m.ringVersion())
        .build();
  }

  private static Message.Purge purge(io.frsm.transport.proto.Purge p) throws WireDecodeException {
    return new Message.Purge(
        key(p.getKey(), "purge"),
        new PurgeMark(
            instanceField(p.getEpoch(), "epoch", "purge"),
            instanceField(p.getTimestamp(), "timestamp", "purge"),
            instanceField(p.getMarkTimeMs(), "mark_time_ms", "purge")),
        instanceField(p.getRingVersion(), "ring_version", "purge"));
  }

  // ---- ListKeys, KeysListed (a new holder's range scan)

  private static io.frsm.transport.proto.ListKeys listKeys(Message.ListKeys m) {
    var b =
        io.frsm.transport.proto.ListKeys.newBuilder()
            .setKey(key(m.key()))
            .setRound(roundId(m.round()))
            .setRange(m.range())
            .setTerm(m.term())
            .setFromToken(m.fromToken())
            .setToToken(m.toToken())
            .setLimit(m.limit())
            .setRingVersion(m.ringVersion());
    if (m.after() != null) {
      b.setAfter(key(m.after()));
    }
    return b.build();
  }

  private static Message.ListKeys listKeys(io.frsm.transport.proto.ListKeys p)
      throws WireDecodeException {
    if (p.getRange() < 0 || p.getLimit() <= 0) {
      throw new WireDecodeException(
          "list_keys: range "
              + Integer.toUnsignedString(p.getRange())
              + ", limit "
              + Integer.toUnsignedString(p.getLimit()));
    }
    return new Message.ListKeys(
        key(p.getKey(), "list_keys"),
        roundId(p.hasRound(), p.getRound(), "list_keys"),
        p.getRange(),
        instanceField(p.getTerm(), "term", "list_keys"),
        p.getFromToken(),
        p.getToToken(),
        p.getAfter().isEmpty() ? null : key(p.getAfter(), "list_keys.after"),
        p.getLimit(),
        instanceField(p.getRingVersion(), "ring_version", "list_keys"));
  }

  private static io.frsm.transport.proto.KeysListed keysListed(Message.KeysListed m) {
    var b =
        io.frsm.transport.proto.KeysListed.newBuilder()
            .setKey(key(m.key()))
            .setRound(roundId(m.round()))
            .setMore(m.more());
    for (io.frsm.cell.Key k : m.keys()) {
      b.addKeys(key(k));
    }
    return b.build();
  }

  private static Message.KeysListed keysListed(io.frsm.transport.proto.KeysListed p)
      throws WireDecodeException {
    java.util.List<io.frsm.cell.Key> keys = new java.util.ArrayList<>(p.getKeysCount());
    for (com.google.protobuf.ByteString k : p.getKeysList()) {
      keys.add(key(k, "keys_listed.keys"));
    }
    return new Message.KeysListed(
        key(p.getKey(), "keys_listed"),
        roundId(p.hasRound(), p.getRound(), "keys_listed"),
        keys,
        p.getMore());
  }

  // ---- StaleRing (ring versions: docs/PROTOCOL.md "Membership changes")

  private static io.frsm.transport.proto.StaleRing staleRing(Message.StaleRing m) {
    return io.frsm.transport.proto.StaleRing.newBuilder()
        .setKey(key(m.key()))
        .setRound(roundId(m.round()))
        .setRingVersion(m.ringVersion())
        .build();
  }

  private static Message.StaleRing staleRing(io.frsm.transport.proto.StaleRing p)
      throws WireDecodeException {
    return new Message.StaleRing(
        key(p.getKey(), "stale_ring"),
        roundId(p.hasRound(), p.getRound(), "stale_ring"),
        instanceField(p.getRingVersion(), "ring_version", "stale_ring"));
  }
}
