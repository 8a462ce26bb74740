package io.frsm.api;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A linearizable key-value store in which every key is its own replicated state machine.
 *
 * <p>Every mutation is a compare-and-swap on the key's {@link Version}. Operations on one key take
 * effect in the order a client issues them (session ordering): a client runs at most one mutation
 * of a key at a time, behind every earlier call on the key; the reads between two mutations run
 * concurrently, and the answer to a later one is never older than the answer to an earlier one
 * (answers are released in issue order; the futures of async calls complete on the client's
 * callback threads — or where {@link FrsmClientBuilder#callbackExecutor} says — so two of them may
 * complete in either order — chain a call on the future of the one before it where the completion
 * order matters). Failures are unchecked subclasses of {@link FrsmException}: {@link
 * KeyExistsException} and {@link CasMismatchException} are definite; {@link
 * OutcomeUnknownException} is resolved with {@link #fence(byte[])}; {@link NotExecutedException} is
 * safe to retry.
 *
 * <p>Thread-safe. The async methods never block the caller; the sync methods wait for their async
 * twin.
 */
public interface FrsmClient extends AutoCloseable {

  /**
   * A builder for a client that learns the cluster from seed nodes ({@link
   * FrsmClientBuilder#seeds}). Needs an implementation on the class path ({@code
   * io.frsm:frsm-client}); an embedded node hands out its own client instead ({@code
   * FrsmNode.client()}).
   */
  static FrsmClientBuilder builder() {
    return new FrsmClientBuilder();
  }

  /**
   * The key's newest chosen value, or empty if it is absent. Linearizable.
   *
   * <p>A get usually leaves the version as it is, but not always: when the replicas' answers cannot
   * show that the newest value was chosen (a replica slow or down, a write in flight), the read
   * settles it by writing the same value again at the next version, and returns that version. So a
   * CAS should expect the version of the newest call that returned one, not an older one from
   * before a get.
   */
  default Optional<Versioned> get(byte[] key) {
    return Futures.join(getAsync(key));
  }

  /** Creates an absent key at a new epoch, timestamp 0. Throws {@link KeyExistsException}. */
  default Version create(byte[] key, byte[] value) {
    return Futures.join(createAsync(key, value));
  }

  /**
   * Replaces the value iff the key's newest chosen version is {@code expected} and live. Returns
   * the new version {@code expected.next()}. Throws {@link CasMismatchException}.
   */
  default Version cas(byte[] key, Version expected, byte[] newValue) {
    return Futures.join(casAsync(key, expected, newValue));
  }

  /** Deletes the key iff its newest chosen version is {@code expected}. */
  default void delete(byte[] key, Version expected) {
    Futures.join(deleteAsync(key, expected));
  }

  /**
   * A read that also bumps the version: once it returns version V, no CAS or delete expecting an
   * older version can succeed. Returns the value at its new version, or empty if the key is absent.
   */
  default Optional<Versioned> fence(byte[] key) {
    return Futures.join(fenceAsync(key));
  }

  CompletableFuture<Optional<Versioned>> getAsync(byte[] key);

  /**
   * A client that reads with {@code mode} and otherwise behaves as this one: it shares this
   * client's connections and its session ordering per key (calls through either keep their issue
   * order on a key), and lives as long as this client; closing it does nothing. frsm's clients
   * (frsm-client's and a node's embedded client) implement it.
   *
   * @throws UnsupportedOperationException if this implementation offers no read modes
   */
  default FrsmClient withReadMode(ReadMode mode) {
    throw new UnsupportedOperationException(getClass().getName() + " offers no read modes");
  }

  /**
   * A client whose calls wait at most {@code timeout} for a node's answer (instead of the builder's
   * {@code operationTimeout}), and otherwise behaves as this one (shared connections and session
   * ordering; closing it does nothing). A mutation whose answer did not come in time fails {@link
   * OutcomeUnknownException}, a read {@link NotExecutedException}. frsm-client's client implements
   * it; a node's embedded client does not (its operations end by the cluster's bounded delay {@code
   * T}).
   *
   * @throws IllegalArgumentException if {@code timeout} is not positive
   * @throws UnsupportedOperationException if this implementation offers no per-call timeout
   */
  default FrsmClient withTimeout(java.time.Duration timeout) {
    throw new UnsupportedOperationException(getClass().getName() + " offers no per-call timeout");
  }

  /**
   * A client whose creates, CASes and deletes are <em>idempotent under resend</em>, and otherwise
   * behaves as this one (shared connections and session ordering; closing it does nothing).
   *
   * <p>Each mutation carries a fresh random 128-bit token, which the cluster stores with the value
   * it writes (never returned by reads). When the outcome is unknown (a timeout, a lost reply, a
   * leader change), the client resends the same mutation with the same token, a few times with a
   * short pause, and the leader answers the resend truthfully:
   *
   * <ul>
   *   <li>the earlier attempt's value is the key's newest: the call returns as written (at {@code
   *       expected.next()} for a CAS or delete; for a create, its version) — the mutation took
   *       effect once, never twice;
   *   <li>the key is still at the expected version: the mutation runs now (the earlier attempt
   *       never took effect);
   *   <li>the key moved past the expected version under another value: the earlier attempt may have
   *       taken effect and been overwritten, so the call fails {@link OutcomeUnknownException}
   *       (never a {@link CasMismatchException}, which would wrongly say "not applied"); resolve it
   *       with {@link #fence(byte[])} as for any unknown outcome.
   * </ul>
   *
   * A {@link CasMismatchException} or {@link KeyExistsException} from this client is as definite as
   * from any other. A create resend that finds the key deleted fails unknown (the earlier attempt
   * may have created it before the delete); one that finds it absent creates it — wrong only if the
   * earlier attempt created the key and it was deleted and its tombstone dropped meanwhile, which
   * the defaults keep out of reach: no resend goes out later than 60 s after the first attempt (the
   * outcome then stays unknown), and a node drops a tombstone only {@code lsm.tombstoneGracePeriod}
   * (24 h) after the delete reached every replica. Against a node of an older release the token is
   * ignored and a resend behaves as a plain retry of a CAS (a mismatch may then hide an earlier
   * success). frsm-client's client and a node's embedded client implement it.
   *
   * @throws UnsupportedOperationException if this implementation has no idempotent mutations
   */
  default FrsmClient idempotent() {
    throw new UnsupportedOperationException(getClass().getName() + " has no idempotent mutations");
  }

  CompletableFuture<Version> createAsync(byte[] key, byte[] value);

  CompletableFuture<Version> casAsync(byte[] key, Version expected, byte[] newValue);

  CompletableFuture<Void> deleteAsync(byte[] key, Version expected);

  CompletableFuture<Optional<Versioned>> fenceAsync(byte[] key);

  /** Releases connections and threads. Operations in flight complete exceptionally. */
  @Override
  void close();
}
