package io.frsm.consensus.core;

/**
 * A {@link CellStore} could not read a key (an I/O error, a quarantined corrupt table). The core
 * treats it as a local failure of this replica for that one input, never as "nothing stored":
 *
 * <ul>
 *   <li>the acceptor leaves the message unanswered, as a crashed replica would; the coordinator
 *       that sent it times out on this replica and uses the others;
 *   <li>the coordinator runs the operation cold (a prepare), without the local shortcut;
 *   <li>a lease holder never serves the key from its local cell (leader-only read, doomed CAS): the
 *       operation runs its rounds at the other replicas;
 *   <li>if the unreadable key is a range's term cell, the acceptor stays silent for every prepare,
 *       accept, term persist and listing of that range (it cannot check their terms).
 * </ul>
 *
 * None of these stops the node: a corrupt block of the LSM (issue 23) makes a few keys silent, not
 * the replica fatal.
 *
 * <p>Answering from what could be read would be unsafe: an acceptor that forgot its promise could
 * promise or accept below it.
 */
public final class CellStoreException extends RuntimeException {
  public CellStoreException(String message, Throwable cause) {
    super(message, cause);
  }
}
