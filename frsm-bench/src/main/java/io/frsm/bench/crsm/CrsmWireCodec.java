package io.frsm.bench.crsm;

import com.google.protobuf.ByteString;
import io.frsm.bench.crsm.proto.CommandType;
import io.frsm.bench.crsm.proto.CrsmEnvelope;
import io.frsm.cell.Ballot;
import io.frsm.client.transport.EnvelopeParser;
import io.frsm.client.transport.WireDecodeException;
import io.frsm.transport.ProtobufPeerWireCodec;
import java.util.ArrayList;
import java.util.List;

/**
 * The baseline's {@link ShardMessage}s as {@code CrsmEnvelope}s (crsm.proto), so cRSM nodes talk
 * over frsm's own {@link io.frsm.transport.FramedPeerTransport}: the same framing, connections and
 * flush policy as frsm's Paxos messages, and protobuf encoding of the same kind (keys and values
 * copied into {@code bytes} fields, as frsm's codec does). Stateless.
 *
 * <p>Decoding checks what the records check (non-negative ballots, node ids, versions, a known
 * command type, a shard in range) and refuses a frame that breaks it with a {@link
 * WireDecodeException}: the transport then closes the connection and logs why.
 */
public final class CrsmWireCodec extends ProtobufPeerWireCodec<CrsmEnvelope, ShardMessage> {
  public static final CrsmWireCodec INSTANCE = new CrsmWireCodec();

  /** The version of crsm.proto this codec speaks. */
  public static final int PROTOCOL_VERSION = 1;

  private CrsmWireCodec() {
    super(
        new EnvelopeParser<>("cRSM", CrsmEnvelope::parseFrom),
        CrsmEnvelope::getProtocolVersion,
        CrsmEnvelope::getClusterId,
        CrsmEnvelope::getSenderNodeId);
  }

  @Override
  public String protocolName() {
    return "cRSM";
  }

  @Override
  public int protocolVersion() {
    return PROTOCOL_VERSION;
  }

  @Override
  public CrsmEnvelope encode(
      int protocolVersion, String clusterId, int senderNodeId, ShardMessage message) {
    CrsmEnvelope.Builder b =
        CrsmEnvelope.newBuilder()
            .setProtocolVersion(protocolVersion)
            .setClusterId(clusterId)
            .setSenderNodeId(senderNodeId)
            .setShard(message.shard());
    CrsmMessage m = message.message();
    if (m instanceof CrsmMessage.Prepare p) {
      b.setPrepare(
          io.frsm.bench.crsm.proto.Prepare.newBuilder()
              .setBallot(ballot(p.ballot()))
              .setFromSlot(p.fromSlot()));
    } else if (m instanceof CrsmMessage.Promise p) {
      io.frsm.bench.crsm.proto.Promise.Builder promise =
          io.frsm.bench.crsm.proto.Promise.newBuilder().setBallot(ballot(p.ballot()));
      for (CrsmMessage.SlotValue e : p.entries()) {
        promise.addEntries(
            io.frsm.bench.crsm.proto.SlotValue.newBuilder()
                .setSlot(e.slot())
                .setBallot(ballot(e.ballot()))
                .addAllBatch(wireBatch(e.batch()))
                .setChosen(e.chosen()));
      }
      b.setPromise(promise);
    } else if (m instanceof CrsmMessage.Accept a) {
      b.setAccept(
          io.frsm.bench.crsm.proto.Accept.newBuilder()
              .setBallot(ballot(a.ballot()))
              .setSlot(a.slot())
              .addAllBatch(wireBatch(a.batch()))
              .setChosenThrough(a.chosenThrough())
              .setTrimThrough(a.trimThrough()));
    } else if (m instanceof CrsmMessage.Accepted a) {
      b.setAccepted(
          io.frsm.bench.crsm.proto.Accepted.newBuilder()
              .setBallot(ballot(a.ballot()))
              .setSlot(a.slot())
              .setExecutedThrough(a.executedThrough()));
    } else if (m instanceof CrsmMessage.Reject r) {
      b.setReject(
          io.frsm.bench.crsm.proto.Reject.newBuilder()
              .setBallot(ballot(r.ballot()))
              .setPromised(ballot(r.promised())));
    } else if (m instanceof CrsmMessage.Heartbeat h) {
      b.setHeartbeat(
          io.frsm.bench.crsm.proto.Heartbeat.newBuilder()
              .setBallot(ballot(h.ballot()))
              .setChosenThrough(h.chosenThrough())
              .setTrimThrough(h.trimThrough()));
    } else if (m instanceof CrsmMessage.HeartbeatAck h) {
      b.setHeartbeatAck(
          io.frsm.bench.crsm.proto.HeartbeatAck.newBuilder()
              .setBallot(ballot(h.ballot()))
              .setExecutedThrough(h.executedThrough()));
    } else if (m instanceof CrsmMessage.Fetch f) {
      b.setFetch(
          io.frsm.bench.crsm.proto.Fetch.newBuilder()
              .setBallot(ballot(f.ballot()))
              .setFromSlot(f.fromSlot()));
    } else if (m instanceof CrsmMessage.Learn l) {
      b.setLearn(
          io.frsm.bench.crsm.proto.Learn.newBuilder()
              .setBallot(ballot(l.ballot()))
              .setSlot(l.slot())
              .addAllBatch(wireBatch(l.batch())));
    } else {
      throw new IllegalArgumentException(
          "no wire mapping for " + m.getClass().getName() + ": add it to crsm.proto");
    }
    return b.build();
  }

  /**
   * The baseline keeps its idle connections open as frsm's peers do (before it had none, so an idle
   * cRSM connection was closed by the receiver's idle timeout and dialed again on the next send, a
   * cost frsm does not pay).
   */
  @Override
  public CrsmEnvelope encodeKeepalive(int protocolVersion, String clusterId, int senderNodeId) {
    return CrsmEnvelope.newBuilder()
        .setProtocolVersion(protocolVersion)
        .setClusterId(clusterId)
        .setSenderNodeId(senderNodeId)
        .setKeepalive(io.frsm.bench.crsm.proto.Keepalive.getDefaultInstance())
        .build();
  }

  @Override
  protected boolean isKeepalive(CrsmEnvelope envelope) {
    return envelope.hasKeepalive();
  }

  @Override
  protected ShardMessage bodyOf(CrsmEnvelope envelope) throws WireDecodeException {
    try {
      return new ShardMessage(envelope.getShard(), message(envelope));
    } catch (IllegalArgumentException | NullPointerException e) {
      // A record's own check refused a field (negative number, ⊥ where a ballot is needed...).
      throw new WireDecodeException("invalid cRSM message: " + e.getMessage(), e);
    }
  }

  private static CrsmMessage message(CrsmEnvelope e) throws WireDecodeException {
    return switch (e.getBodyCase()) {
      case PREPARE ->
          new CrsmMessage.Prepare(
              ballot(e.getPrepare().hasBallot(), e.getPrepare().getBallot()),
              slot(e.getPrepare().getFromSlot()));
      case PROMISE -> {
        io.frsm.bench.crsm.proto.Promise p = e.getPromise();
        List<CrsmMessage.SlotValue> entries = new ArrayList<>(p.getEntriesCount());
        for (io.frsm.bench.crsm.proto.SlotValue v : p.getEntriesList()) {
          entries.add(
              new CrsmMessage.SlotValue(
                  slot(v.getSlot()),
                  ballot(v.hasBallot(), v.getBallot()),
                  batch(v.getBatchList()),
                  v.getChosen()));
        }
        yield new CrsmMessage.Promise(ballot(p.hasBallot(), p.getBallot()), entries);
      }
      case ACCEPT -> {
        io.frsm.bench.crsm.proto.Accept a = e.getAccept();
        yield new CrsmMessage.Accept(
            ballot(a.hasBallot(), a.getBallot()),
            slot(a.getSlot()),
            batch(a.getBatchList()),
            slot(a.getChosenThrough()),
            slot(a.getTrimThrough()));
      }
      case ACCEPTED -> {
        io.frsm.bench.crsm.proto.Accepted a = e.getAccepted();
        yield new CrsmMessage.Accepted(
            ballot(a.hasBallot(), a.getBallot()), slot(a.getSlot()), slot(a.getExecutedThrough()));
      }
      case REJECT -> {
        io.frsm.bench.crsm.proto.Reject r = e.getReject();
        yield new CrsmMessage.Reject(
            ballot(r.hasBallot(), r.getBallot()), ballot(r.hasPromised(), r.getPromised()));
      }
      case HEARTBEAT -> {
        io.frsm.bench.crsm.proto.Heartbeat h = e.getHeartbeat();
        yield new CrsmMessage.Heartbeat(
            ballot(h.hasBallot(), h.getBallot()),
            slot(h.getChosenThrough()),
            slot(h.getTrimThrough()));
      }
      case HEARTBEAT_ACK -> {
        io.frsm.bench.crsm.proto.HeartbeatAck h = e.getHeartbeatAck();
        yield new CrsmMessage.HeartbeatAck(
            ballot(h.hasBallot(), h.getBallot()), slot(h.getExecutedThrough()));
      }
      case FETCH ->
          new CrsmMessage.Fetch(
              ballot(e.getFetch().hasBallot(), e.getFetch().getBallot()),
              slot(e.getFetch().getFromSlot()));
      case LEARN -> {
        io.frsm.bench.crsm.proto.Learn l = e.getLearn();
        yield new CrsmMessage.Learn(
            ballot(l.hasBallot(), l.getBallot()), slot(l.getSlot()), batch(l.getBatchList()));
      }
        // The transport drops keep-alives before it asks for a body.
      case KEEPALIVE -> throw new WireDecodeException("a cRSM keep-alive has no message body");
      case BODY_NOT_SET -> throw new WireDecodeException("cRSM envelope without a (known) body");
    };
  }

  /** Slots and slot points are {@code >= -1} (-1: none yet). */
  private static long slot(long slot) throws WireDecodeException {
    if (slot < -1) {
      throw new WireDecodeException("slot " + slot + " is below -1");
    }
    return slot;
  }

  private static io.frsm.bench.crsm.proto.Ballot ballot(Ballot b) {
    return io.frsm.bench.crsm.proto.Ballot.newBuilder()
        .setRound(b.round())
        .setNodeId(b.nodeId())
        .setBoot(b.boot())
        .build();
  }

  private static Ballot ballot(boolean present, io.frsm.bench.crsm.proto.Ballot b)
      throws WireDecodeException {
    if (!present) {
      throw new WireDecodeException("a required ballot is missing");
    }
    // Negative after the uint cast: above the Java range, refused by Ballot's own check.
    return new Ballot(b.getRound(), b.getNodeId(), b.getBoot());
  }

  private static List<io.frsm.bench.crsm.proto.ClientCommand> wireBatch(List<ClientCommand> batch) {
    List<io.frsm.bench.crsm.proto.ClientCommand> out = new ArrayList<>(batch.size());
    for (ClientCommand c : batch) {
      io.frsm.bench.crsm.proto.ClientCommand.Builder b =
          io.frsm.bench.crsm.proto.ClientCommand.newBuilder()
              .setOrigin(c.origin())
              .setRequestId(c.requestId())
              .setKey(ByteString.copyFrom(c.command().key()));
      Command command = c.command();
      if (command instanceof Command.Get) {
        b.setType(CommandType.COMMAND_TYPE_GET);
      } else if (command instanceof Command.Create cr) {
        b.setType(CommandType.COMMAND_TYPE_CREATE).setValue(ByteString.copyFrom(cr.value()));
      } else if (command instanceof Command.Cas cas) {
        b.setType(CommandType.COMMAND_TYPE_CAS)
            .setValue(ByteString.copyFrom(cas.value()))
            .setExpected(version(cas.expected()));
      } else if (command instanceof Command.Delete d) {
        b.setType(CommandType.COMMAND_TYPE_DELETE).setExpected(version(d.expected()));
      } else if (command instanceof Command.Fence) {
        b.setType(CommandType.COMMAND_TYPE_FENCE);
      } else {
        throw new IllegalArgumentException("no wire mapping for " + command.getClass().getName());
      }
      out.add(b.build());
    }
    return out;
  }

  private static List<ClientCommand> batch(List<io.frsm.bench.crsm.proto.ClientCommand> batch)
      throws WireDecodeException {
    List<ClientCommand> out = new ArrayList<>(batch.size());
    for (io.frsm.bench.crsm.proto.ClientCommand c : batch) {
      if (c.getOrigin() < 0) {
        throw new WireDecodeException("command origin is above 2^31-1");
      }
      byte[] key = c.getKey().toByteArray();
      Command command =
          switch (c.getType()) {
            case COMMAND_TYPE_GET -> new Command.Get(key);
            case COMMAND_TYPE_CREATE -> new Command.Create(key, c.getValue().toByteArray());
            case COMMAND_TYPE_CAS ->
                new Command.Cas(
                    key, version(c.hasExpected(), c.getExpected()), c.getValue().toByteArray());
            case COMMAND_TYPE_DELETE ->
                new Command.Delete(key, version(c.hasExpected(), c.getExpected()));
            case COMMAND_TYPE_FENCE -> new Command.Fence(key);
            case COMMAND_TYPE_UNSPECIFIED, UNRECOGNIZED ->
                throw new WireDecodeException("unknown command type " + c.getTypeValue());
          };
      out.add(new ClientCommand(c.getOrigin(), c.getRequestId(), command));
    }
    return List.copyOf(out);
  }

  private static io.frsm.bench.crsm.proto.Version version(io.frsm.api.Version v) {
    return io.frsm.bench.crsm.proto.Version.newBuilder()
        .setEpoch(v.epoch())
        .setTimestamp(v.timestamp())
        .build();
  }

  private static io.frsm.api.Version version(boolean present, io.frsm.bench.crsm.proto.Version v)
      throws WireDecodeException {
    if (!present) {
      throw new WireDecodeException("a CAS or delete without its expected version");
    }
    return new io.frsm.api.Version(v.getEpoch(), v.getTimestamp());
  }
}
