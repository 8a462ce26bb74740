package io.frsm.server.zk;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.WatcherRemoveCuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;

/**
 * One node's entry in a range's leader election: ZooKeeper's election recipe (the lowest sequential
 * ephemeral child of the latch znode wins; every other entry watches the one just before it), in
 * the znode layout of Curator's {@code LeaderLatch} — children {@code
 * <protection>-latch-<sequence>} holding the participant id in UTF-8 (docs/FORMATS.md) — so either
 * can take part in the same election (tests queue a {@code LeaderLatch} among the nodes).
 *
 * <p>Why not Curator's {@code LeaderLatch}: a node joins a range's latch as a stand-in and leaves
 * it again within a ZooKeeper round trip whenever the ready replicas change quickly, as while a
 * cluster forms. A {@code LeaderLatch} closed while one of its own reads is in flight (the check
 * after it created its entry, or after its predecessor went) finds its entry gone when the answer
 * comes, logs SEVERE "failed to find our node; resetting", and creates and deletes a stray entry.
 * Here every answer and watch event is handled under the latch's monitor and ignored once {@link
 * #close} ran, so leaving is final at once whatever is in flight. An entry that went with an
 * expired session is not an error either: the latch joins again (INFO).
 *
 * <p>Leadership is advisory (ranges are guarded by terms and leases): this class only decides who
 * bumps a term. A {@code SUSPENDED} connection changes nothing (the session may well live on, and
 * with it the entry; the holder's lease runs out by itself if it cannot be renewed); from a {@code
 * LOST} session (expired, or taken for expired) until the check after the reconnect it does not
 * lead. Either way the check after the reconnect reads whether the entry still belongs to the
 * current session: an entry that went with an expired session, while another node perhaps took the
 * range, is noticed there and the latch joins again. Hand-over costs what the recipe costs: the
 * successor's watch fires when the holder's entry is deleted, then one read of the children and one
 * of its own entry.
 *
 * <p>Thread-safe: {@link #start} and {@link #close} run on the caller's thread, answers and watch
 * events on ZooKeeper's event thread, connection changes on Curator's; all under this latch's
 * monitor, which is never held while waiting (every ZooKeeper call is asynchronous). The {@link
 * Listener} is called under the monitor and must not block.
 */
final class RangeLatch implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(RangeLatch.class.getName());

  /** What an entry's name holds before its sequence number (Curator's LeaderLatch uses it too). */
  static final String ENTRY_PREFIX = "latch-";

  /** Hears this latch's leadership change; called under the latch's monitor, must not block. */
  interface Listener {
    /** {@code latch}'s entry is the first one now, in the current session. */
    void won(RangeLatch latch);

    /** {@code latch} no longer leads (connection suspended or lost, or its entry went). */
    void lost(RangeLatch latch);
  }

  private final WatcherRemoveCuratorFramework zk;
  private final String latchPath;
  private final byte[] participantId;
  private final String describedAs;
  private final Listener listener;
  private final ConnectionStateListener connectionListener = this::onConnectionState;

  /** One watcher for every predecessor: ZooKeeper keeps a watcher once per znode. */
  private final Watcher predecessorWatcher = this::predecessorChanged;

  // Guarded by this.
  private boolean started;
  private boolean closed;
  private boolean creating;
  private String entry; // this latch's znode, null while it has none
  private boolean leading;
  private long leadingSession;
  private CompletableFuture<Void> creation = CompletableFuture.completedFuture(null);

  /**
   * @param latchPath the range's latch znode ({@link ZkLayout#latch})
   * @param participantId what the entry holds: the node id, as {@code LeaderLatch} participants
   * @param describedAs names the latch in log lines ("node 2, range 5")
   */
  RangeLatch(
      CuratorFramework zk,
      String latchPath,
      String participantId,
      String describedAs,
      Listener listener) {
    this.zk = zk.newWatcherRemoveCuratorFramework();
    this.latchPath = latchPath;
    this.participantId = participantId.getBytes(UTF_8);
    this.describedAs = describedAs;
    this.listener = listener;
  }

  /** Enters the election: creates this latch's entry, then checks where it stands. */
  synchronized void start() {
    if (started) {
      throw new IllegalStateException(describedAs + ": latch started twice");
    }
    started = true;
    zk.getConnectionStateListenable().addListener(connectionListener);
    join();
  }

  /** This latch's entry (a znode path), or null while it has none. */
  synchronized String entryPath() {
    return entry;
  }

  /**
   * The session that owned this latch's entry when it was last found leading (0: never): a lease
   * won with the entry may be carried by that session (docs/PROTOCOL.md "Leases backed by the
   * session").
   */
  synchronized long leadingSession() {
    return leadingSession;
  }

  /** Whether this entry leads the election now. */
  synchronized boolean leads() {
    return leading;
  }

  /** This latch's znode, or null while it has none (before it is created, after it left). */
  synchronized String entry() {
    return entry;
  }

  /**
   * Completes once no creation of an entry is in flight (at once if none is), nor the delete a
   * closed latch makes of its entry. The ZooKeeper client must not close before: the first entry of
   * a latch also creates the latch znode, which Curator does with calls made on its background
   * thread, and closing the client interrupts them or finds a delete still queued (Curator logs
   * SEVERE "Background exception was not retry-able").
   */
  synchronized CompletableFuture<Void> creationAnswered() {
    return creation;
  }

  /**
   * Leaves the election for good, at once: this latch reports nothing more, and its entry is
   * deleted (by Curator's guaranteed delete, retried across connection loss; an entry whose
   * creation is still in flight is deleted when it is answered). The listener hears no {@link
   * Listener#lost}: the caller ends what it held itself. Idempotent.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    leading = false;
    zk.getConnectionStateListenable().removeListener(connectionListener);
    zk.removeWatchers();
    if (entry != null) {
      // Tracked like a creation: the client must not close under this delete either.
      CompletableFuture<Void> deleted = new CompletableFuture<>();
      creation = deleted;
      deleteEntry(entry, () -> deleted.complete(null));
      entry = null;
    }
  }

  /** REQUIRES: holds the monitor, not closed, no entry. */
  private void join() {
    if (creating) {
      return;
    }
    creating = true;
    creation = new CompletableFuture<>();
    try {
      zk.create()
          .creatingParentContainersIfNeeded()
          .withProtection()
          .withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
          .inBackground((client, answer) -> created(answer))
          .forPath(latchPath + "/" + ENTRY_PREFIX, participantId);
    } catch (Exception e) {
      creating = false;
      creation.complete(null);
      LOG.log(System.Logger.Level.WARNING, describedAs + ": cannot join the latch", e);
    }
  }

  private synchronized void created(CuratorEvent answer) {
    creating = false;
    CompletableFuture<Void> answered = creation;
    if (answer.getResultCode() != Code.OK.intValue()) {
      answered.complete(null);
      // Curator retried what can be retried; the next reconnect joins again.
      if (!closed) {
        LOG.log(
            System.Logger.Level.WARNING,
            "{0}: cannot join the latch: {1}",
            describedAs,
            Code.get(answer.getResultCode()));
      }
      return;
    }
    if (closed) {
      // Answered only once the delete of the entry nobody wants is answered too: whoever waits
      // for the creation may then close the client, and a delete still queued on a closed client
      // made Curator log SEVERE "Background exception was not retry-able" (RangeLatchIT).
      deleteEntry(answer.getName(), () -> answered.complete(null));
      return;
    }
    answered.complete(null);
    entry = answer.getName();
    check();
  }

  /** Reads the entries to see where this one stands. */
  private synchronized void check() {
    if (closed || entry == null) {
      return;
    }
    String checked = entry;
    try {
      zk.getChildren()
          .inBackground((client, answer) -> standing(checked, answer))
          .forPath(latchPath);
    } catch (Exception e) {
      LOG.log(System.Logger.Level.WARNING, describedAs + ": cannot read the latch", e);
    }
  }

  /** The answer of {@link #check}, made while this latch's entry was {@code checked}. */
  private synchronized void standing(String checked, CuratorEvent answer) {
    if (closed || !checked.equals(entry)) {
      return; // left, or joined again since: a newer check decides
    }
    if (answer.getResultCode() != Code.OK.intValue()) {
      // Connection loss: the reconnect checks again. NONODE: the latch znode went with its last
      // entry (a container), so this entry is gone too.
      if (answer.getResultCode() == Code.NONODE.intValue()) {
        entryGone();
      }
      return;
    }
    List<String> entries =
        answer.getChildren().stream()
            .filter(RangeLatch::isEntry)
            .sorted(Comparator.comparing(RangeLatch::sequenceOf))
            .toList();
    int position = entries.indexOf(nameOf(entry));
    if (position < 0) {
      entryGone();
    } else if (position == 0) {
      // A children read just after a session expiry may still list the old session's entry (the
      // server deletes it when it expires the session on its side, which can come later).
      ifStillOurs(entry, () -> setLeading(true));
    } else {
      setLeading(false);
      watchPredecessor(entry, latchPath + "/" + entries.get(position - 1));
    }
  }

  /**
   * Reads whether {@code current} is an entry of the current session: if so runs {@code ifOurs}
   * under the monitor, if not (or if it is gone) joins again.
   */
  private void ifStillOurs(String current, Runnable ifOurs) {
    try {
      zk.checkExists()
          .inBackground((client, answer) -> ownerRead(current, answer, ifOurs))
          .forPath(current);
    } catch (Exception e) {
      LOG.log(System.Logger.Level.WARNING, describedAs + ": cannot read its latch entry", e);
    }
  }

  private synchronized void ownerRead(String current, CuratorEvent answer, Runnable ifOurs) {
    if (closed || !current.equals(entry)) {
      return;
    }
    Stat stat = answer.getStat();
    long session = sessionId();
    if (answer.getResultCode() == Code.OK.intValue() && stat != null && session != 0) {
      if (stat.getEphemeralOwner() == session) {
        leadingSession = session;
        ifOurs.run();
      } else {
        entryGone();
      }
    } else if (answer.getResultCode() == Code.NONODE.intValue()) {
      entryGone();
    }
    // Otherwise the connection went (or no session is known now): the reconnect checks again.
  }

  /**
   * Watches the entry before this one; when it goes, checks again. A predecessor gone already is
   * answered NONODE (getData leaves no watch on a missing znode, unlike exists): check at once.
   */
  private void watchPredecessor(String checked, String predecessor) {
    try {
      zk.getData()
          .usingWatcher(predecessorWatcher)
          .inBackground(
              (client, answer) -> {
                if (answer.getResultCode() == Code.NONODE.intValue()) {
                  recheck(checked);
                }
              })
          .forPath(predecessor);
    } catch (Exception e) {
      LOG.log(System.Logger.Level.WARNING, describedAs + ": cannot watch the latch", e);
    }
  }

  private void predecessorChanged(WatchedEvent event) {
    if (event.getType() == Watcher.Event.EventType.NodeDeleted) {
      check();
    }
  }

  private synchronized void recheck(String checked) {
    if (!closed && checked.equals(entry)) {
      check();
    }
  }

  /**
   * This latch's entry is no longer in ZooKeeper: its session expired. Not an error (the entry went
   * with the session, as ephemeral znodes do): join again with a new entry. REQUIRES: holds the
   * monitor, not closed.
   */
  private void entryGone() {
    setLeading(false);
    LOG.log(
        System.Logger.Level.INFO,
        "{0}: its latch entry went with an earlier ZooKeeper session; joining again",
        describedAs);
    deleteEntry(entry); // if a read raced the session's end, the old entry still has to go
    entry = null;
    leadingSession = 0;
    join();
  }

  private synchronized void onConnectionState(CuratorFramework client, ConnectionState state) {
    if (closed) {
      return;
    }
    switch (state) {
      case LOST -> setLeading(false);
      case SUSPENDED -> {
        // Keeps leading: see the class comment. A term is guarded by its lease, not by this flag.
      }
      case RECONNECTED -> {
        // The session may be new (the old one expired with its entry): check the entry's owner.
        if (entry == null) {
          join();
        } else {
          ifStillOurs(entry, this::check);
        }
      }
      default -> {}
    }
  }

  /** REQUIRES: holds the monitor, not closed (a closed latch reports nothing). */
  private void setLeading(boolean now) {
    if (leading == now) {
      return;
    }
    leading = now;
    if (now) {
      listener.won(this);
    } else {
      listener.lost(this);
    }
  }

  /** The current session's id, or 0 (never a session's) if none is known now. */
  private long sessionId() {
    try {
      return zk.getZookeeperClient().getZooKeeper().getSessionId();
    } catch (Exception e) {
      return 0;
    }
  }

  private void deleteEntry(String path) {
    deleteEntry(path, () -> {});
  }

  /** Deletes {@code path} in the background; {@code answered} runs once ZooKeeper answered. */
  private void deleteEntry(String path, Runnable answered) {
    try {
      zk.delete().guaranteed().inBackground((client, event) -> answered.run()).forPath(path);
    } catch (org.apache.curator.framework.api.CuratorClosedException closed) {
      // The client is closed, so its session is closed too, and ZooKeeper removed the entry (an
      // ephemeral node) with it: nothing is left to delete (a node stopping).
      answered.run();
    } catch (Exception e) {
      answered.run();
      LOG.log(System.Logger.Level.WARNING, describedAs + ": cannot delete its latch entry", e);
    }
  }

  private static String nameOf(String path) {
    return path.substring(path.lastIndexOf('/') + 1);
  }

  /**
   * Whether {@code name} is a latch entry: ZooKeeper's 10-digit sequence after {@link
   * #ENTRY_PREFIX}. Anything else under the latch (a forged or stray znode) takes no place in the
   * queue: an entry with an empty or shorter sequence would sort before every real one.
   */
  static boolean isEntry(String name) {
    int at = name.lastIndexOf(ENTRY_PREFIX);
    return at >= 0 && name.substring(at + ENTRY_PREFIX.length()).matches("[0-9]{10}");
  }

  /** The zero-padded sequence number ZooKeeper appended: entries sort by it as text. */
  static String sequenceOf(String name) {
    return name.substring(name.lastIndexOf(ENTRY_PREFIX) + ENTRY_PREFIX.length());
  }
}
