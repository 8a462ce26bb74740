package io.frsm.client.transport;

import static io.frsm.client.transport.ApiValues.version;
import static io.frsm.client.transport.ApiValues.versioned;
import static io.frsm.client.transport.ApiValues.versionedOrAbsent;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import io.frsm.api.Version;
import io.frsm.client.proto.ClientRequest;
import io.frsm.client.proto.ClientResponse;

/**
 * Maps {@link OperationRequest} and {@link OperationResponse} to the client protocol's {@code
 * ClientRequest} and {@code ClientResponse} and back. Adding an operation or outcome means one
 * protobuf message, one field of the oneof, and one branch each way here.
 */
public final class ClientMessages {
  private ClientMessages() {}

  // ---- requests

  public static ClientRequest request(OperationRequest request) {
    ClientRequest.Builder b =
        ClientRequest.newBuilder().setInvokedAtMicros(request.invokedAtMicros());
    ClientOperation op = request.operation();
    // The key's and the record's arrays are never written after they were made (KeyBytes, "owned
    // by the record"), so the message wraps them instead of copying: one copy of the value and
    // of the key less per request.
    ByteString key = UnsafeByteOperations.unsafeWrap(op.key().bytesUnsafe());
    if (op instanceof ClientOperation.Get get) {
      b.setGet(ClientRequest.Get.newBuilder().setKey(key).setQuorum(get.quorum()));
    } else if (op instanceof ClientOperation.Create c) {
      ClientRequest.Create.Builder create =
          ClientRequest.Create.newBuilder()
              .setKey(key)
              .setValue(UnsafeByteOperations.unsafeWrap(c.value()));
      if (c.hint() != null) {
        create.setIdempotencyToken(token(c.hint())).setResend(c.hint().resend());
      }
      b.setCreate(create);
    } else if (op instanceof ClientOperation.Cas c) {
      ClientRequest.Cas.Builder cas =
          ClientRequest.Cas.newBuilder()
              .setKey(key)
              .setExpected(version(c.expected()))
              .setValue(UnsafeByteOperations.unsafeWrap(c.value()));
      if (c.hint() != null) {
        cas.setIdempotencyToken(token(c.hint())).setResend(c.hint().resend());
      }
      b.setCas(cas);
    } else if (op instanceof ClientOperation.Delete d) {
      ClientRequest.Delete.Builder delete =
          ClientRequest.Delete.newBuilder().setKey(key).setExpected(version(d.expected()));
      if (d.hint() != null) {
        delete.setIdempotencyToken(token(d.hint())).setResend(d.hint().resend());
      }
      b.setDelete(delete);
    } else if (op instanceof ClientOperation.Fence) {
      b.setFence(ClientRequest.Fence.newBuilder().setKey(key));
    } else {
      throw new IllegalArgumentException(
          "no wire mapping for " + op.getClass().getName() + ": add it to client.proto");
    }
    return b.build();
  }

  public static OperationRequest request(ClientRequest p) throws WireDecodeException {
    // 0 means "not given" (the receiving node stamps its clock); how far a given τ may lie from
    // the node's clock is the node's check (it knows T and ε), this one only keeps τ + T finite.
    long invokedAtMicros =
        ApiValues.instanceField(p.getInvokedAtMicros(), "invoked_at_micros", "request");
    ClientOperation op =
        switch (p.getOperationCase()) {
          case GET ->
              new ClientOperation.Get(
                  key(bytes(p.getGet().getKey()), "get"), p.getGet().getQuorum());
          case CREATE ->
              new ClientOperation.Create(
                  key(bytes(p.getCreate().getKey()), "create"),
                  p.getCreate().getValue().toByteArray(),
                  hint(
                      bytes(p.getCreate().getIdempotencyToken()),
                      p.getCreate().getResend(),
                      "create"));
          case CAS ->
              new ClientOperation.Cas(
                  key(bytes(p.getCas().getKey()), "cas"),
                  expected(p.getCas().hasExpected(), p.getCas().getExpected(), "cas.expected"),
                  p.getCas().getValue().toByteArray(),
                  hint(bytes(p.getCas().getIdempotencyToken()), p.getCas().getResend(), "cas"));
          case DELETE ->
              new ClientOperation.Delete(
                  key(bytes(p.getDelete().getKey()), "delete"),
                  expected(
                      p.getDelete().hasExpected(), p.getDelete().getExpected(), "delete.expected"),
                  hint(
                      bytes(p.getDelete().getIdempotencyToken()),
                      p.getDelete().getResend(),
                      "delete"));
          case FENCE -> new ClientOperation.Fence(key(bytes(p.getFence().getKey()), "fence"));
          case OPERATION_NOT_SET ->
              throw new WireDecodeException("request without a (known) operation");
        };
    return new OperationRequest(op, invokedAtMicros);
  }

  private static ByteString token(ClientOperation.Hint hint) {
    return UnsafeByteOperations.unsafeWrap(hint.token());
  }

  /** A bytes field's own copy: the records own their arrays. */
  private static byte[] bytes(ByteString field) {
    return field.toByteArray();
  }

  /**
   * The idempotency hint of a mutation: none for an empty token (a resend flag needs one). {@code
   * token} is a fresh array, kept by the hint.
   */
  static ClientOperation.Hint hint(byte[] token, boolean resend, String where)
      throws WireDecodeException {
    if (token.length == 0) {
      if (resend) {
        throw new WireDecodeException(where + ": resend without an idempotency token");
      }
      return null;
    }
    if (token.length != ClientOperation.Hint.TOKEN_BYTES) {
      throw new WireDecodeException(
          where
              + ": idempotency token of "
              + token.length
              + " bytes, not "
              + ClientOperation.Hint.TOKEN_BYTES);
    }
    return new ClientOperation.Hint(token, resend);
  }

  private static Version expected(
      boolean present, io.frsm.client.proto.Version version, String where)
      throws WireDecodeException {
    return expected(present, version.getEpoch(), version.getTimestamp(), where);
  }

  /**
   * The version a CAS or delete expects: its write lands at {@code timestamp + 1}, which must stay
   * within {@code WireFormat.MAX_NUMBER}.
   */
  static Version expected(boolean present, long epoch, long timestamp, String where)
      throws WireDecodeException {
    Version expected = ApiValues.version(present, epoch, timestamp, where);
    if (expected.timestamp() >= WireFormat.MAX_NUMBER) {
      throw new WireDecodeException(
          where
              + ": timestamp "
              + expected.timestamp()
              + " is not below the maximum "
              + WireFormat.MAX_NUMBER
              + " (the write lands at timestamp + 1)");
    }
    return expected;
  }

  // ---- responses

  public static ClientResponse response(OperationResponse response) {
    ClientResponse.Builder b = ClientResponse.newBuilder();
    if (response instanceof OperationResponse.Invalid i) {
      return b.setInvalidRequest(ClientResponse.InvalidRequest.newBuilder().setReason(i.reason()))
          .build();
    }
    if (response instanceof OperationResponse.Redirect r) {
      return b.setRedirect(
              ClientResponse.Redirect.newBuilder()
                  .setLeaderHost(r.leaderHost())
                  .setLeaderPort(r.leaderPort()))
          .build();
    }
    ClientOutcome outcome = ((OperationResponse.Completed) response).outcome();
    if (outcome instanceof ClientOutcome.ReadResult r) {
      ClientResponse.ReadResult.Builder read = ClientResponse.ReadResult.newBuilder();
      r.value().ifPresent(v -> read.setValue(versioned(v)));
      b.setRead(read);
    } else if (outcome instanceof ClientOutcome.Written w) {
      b.setWritten(ClientResponse.Written.newBuilder().setVersion(version(w.version())));
    } else if (outcome instanceof ClientOutcome.Deleted d) {
      b.setDeleted(ClientResponse.Deleted.newBuilder().setVersion(version(d.version())));
    } else if (outcome instanceof ClientOutcome.Exists e) {
      b.setKeyExists(ClientResponse.KeyExists.newBuilder().setCurrent(versioned(e.current())));
    } else if (outcome instanceof ClientOutcome.Mismatch m) {
      ClientResponse.CasMismatch.Builder mismatch =
          ClientResponse.CasMismatch.newBuilder().setExpected(version(m.expected()));
      m.current().ifPresent(v -> mismatch.setCurrent(versioned(v)));
      b.setCasMismatch(mismatch);
    } else if (outcome instanceof ClientOutcome.Unknown u) {
      b.setOutcomeUnknown(ClientResponse.OutcomeUnknown.newBuilder().setReason(u.reason()));
    } else if (outcome instanceof ClientOutcome.NotExecuted n) {
      b.setNotExecuted(ClientResponse.NotExecuted.newBuilder().setReason(n.reason()));
    } else {
      throw new IllegalArgumentException(
          "no wire mapping for " + outcome.getClass().getName() + ": add it to client.proto");
    }
    return b.build();
  }

  public static OperationResponse response(ClientResponse p) throws WireDecodeException {
    return switch (p.getResultCase()) {
      case READ ->
          completed(
              new ClientOutcome.ReadResult(
                  versionedOrAbsent(p.getRead().hasValue(), p.getRead().getValue(), "read.value")));
      case WRITTEN ->
          completed(
              new ClientOutcome.Written(
                  version(p.getWritten().hasVersion(), p.getWritten().getVersion(), "written")));
      case DELETED ->
          completed(
              new ClientOutcome.Deleted(
                  version(p.getDeleted().hasVersion(), p.getDeleted().getVersion(), "deleted")));
      case KEY_EXISTS ->
          completed(
              new ClientOutcome.Exists(
                  versioned(
                      p.getKeyExists().hasCurrent(),
                      p.getKeyExists().getCurrent(),
                      "key_exists.current")));
      case CAS_MISMATCH ->
          completed(
              new ClientOutcome.Mismatch(
                  version(
                      p.getCasMismatch().hasExpected(),
                      p.getCasMismatch().getExpected(),
                      "cas_mismatch.expected"),
                  versionedOrAbsent(
                      p.getCasMismatch().hasCurrent(),
                      p.getCasMismatch().getCurrent(),
                      "cas_mismatch.current")));
      case OUTCOME_UNKNOWN ->
          completed(new ClientOutcome.Unknown(p.getOutcomeUnknown().getReason()));
      case NOT_EXECUTED -> completed(new ClientOutcome.NotExecuted(p.getNotExecuted().getReason()));
      case INVALID_REQUEST -> new OperationResponse.Invalid(p.getInvalidRequest().getReason());
      case REDIRECT -> redirect(p.getRedirect());
      case RESULT_NOT_SET -> throw new WireDecodeException("response without a (known) result");
    };
  }

  private static OperationResponse completed(ClientOutcome outcome) {
    return new OperationResponse.Completed(outcome);
  }

  private static OperationResponse redirect(ClientResponse.Redirect r) throws WireDecodeException {
    return redirect(r.getLeaderHost(), r.getLeaderPort());
  }

  /** A redirect as read: a leader's address that a client can connect to. */
  static OperationResponse redirect(String host, int port) throws WireDecodeException {
    if (host.isEmpty() || port < 1 || port > 65_535) {
      throw new WireDecodeException(
          "redirect: bad leader address '" + host + "':" + Integer.toUnsignedString(port));
    }
    return new OperationResponse.Redirect(host, port);
  }

  /** A key as read: non-empty; {@code bytes} is a fresh array, kept by the key. */
  static KeyBytes key(byte[] bytes, String where) throws WireDecodeException {
    if (bytes.length == 0) {
      throw new WireDecodeException(where + ": key is missing or empty");
    }
    return KeyBytes.wrap(bytes);
  }
}
