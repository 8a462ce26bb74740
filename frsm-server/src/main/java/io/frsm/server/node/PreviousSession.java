package io.frsm.server.node;

import io.frsm.server.zk.ZooKeeperTls;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.HexFormat;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooKeeper;

/**
 * The ZooKeeper session of this node's previous process (docs/FORMATS.md "ZK-SESSION";
 * docs/OPERATIONS.md "Fail-over timing"). A process killed with {@code kill -9} leaves its session
 * alive on the ensemble until it expires ({@code zookeeper.sessionTimeout}, 10 s by default), and
 * with it the node's registration and the latch entries of the ranges it led: its restart could not
 * register, and no other replica could take those ranges, until then. So each node writes its
 * current session's id and password to {@code <data>/ZK-SESSION}, and at start, if the session the
 * file names still holds the node's member record, ends it — reattaching to it and closing it —
 * before it registers ({@code NodeMembership#connect}).
 *
 * <p>Why ending it is safe: the node holds its directories' {@link DataDirectoryLock}, which the
 * kernel releases only when the holder dies, so the process that owned that session is gone; no
 * lease of its can be in force beyond what every successor waits out anyway (the term's bump and
 * {@code L·(1+ρ)}, docs/PROTOCOL.md rule 6: a crash never marks a release). Closing the session
 * does what its expiry would have done, only sooner. A session that already ended, or one the
 * ensemble does not know (another ensemble, a forged file), is refused by ZooKeeper and nothing
 * happens; any failure here only leaves the node waiting for the expiry, as without the file.
 */
final class PreviousSession {
  private static final System.Logger LOG = System.getLogger(FrsmNode.class.getName());

  static final String FILE_NAME = "ZK-SESSION";
  private static final String TEMP_NAME = "ZK-SESSION.tmp";
  private static final String VERSION = "v1";

  /** More than any ZooKeeper session password (16 bytes in 3.9). */
  private static final int MAX_PASSWORD_BYTES = 64;

  /** A session: its id and password. */
  record Saved(long id, byte[] password) {
    Saved {
      if (password.length == 0 || password.length > MAX_PASSWORD_BYTES) {
        throw new IllegalArgumentException("session password of " + password.length + " bytes");
      }
      password = password.clone();
    }

    @Override
    public byte[] password() {
      return password.clone();
    }

    @Override
    public String toString() {
      return "0x" + Long.toHexString(id); // never the password
    }
  }

  private PreviousSession() {}

  /**
   * Writes {@code session} as {@code dataDirectory}'s current one: to a temporary file readable by
   * the owner only, then renamed over the old one (a crash leaves the old file or the new).
   */
  static void record(Path dataDirectory, Saved session) throws IOException {
    String text =
        VERSION
            + " "
            + Long.toHexString(session.id())
            + " "
            + HexFormat.of().formatHex(session.password)
            + "\n";
    Path temp = dataDirectory.resolve(TEMP_NAME);
    Files.deleteIfExists(temp);
    if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
      Files.createFile(
          temp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    }
    Files.writeString(temp, text, StandardCharsets.US_ASCII);
    try {
      Files.move(
          temp,
          dataDirectory.resolve(FILE_NAME),
          StandardCopyOption.ATOMIC_MOVE,
          StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(temp, dataDirectory.resolve(FILE_NAME), StandardCopyOption.REPLACE_EXISTING);
    }
  }

  /**
   * The session {@code dataDirectory}'s file names, or null if there is none or it is not this
   * format (logged: a damaged or forged file only costs the wait for the expiry).
   */
  static Saved read(Path dataDirectory) {
    Path file = dataDirectory.resolve(FILE_NAME);
    String text;
    try {
      if (!Files.isRegularFile(file) || Files.size(file) > 256) {
        return null;
      }
      text = Files.readString(file, StandardCharsets.US_ASCII);
    } catch (IOException | RuntimeException unreadable) {
      LOG.log(Level.WARNING, "{0} cannot be read, ignored: {1}", file, unreadable.toString());
      return null;
    }
    try {
      return parse(text);
    } catch (IllegalArgumentException bad) {
      LOG.log(Level.WARNING, "{0} is not a session record, ignored: {1}", file, bad.getMessage());
      return null;
    }
  }

  /** The record {@code text} holds. @throws IllegalArgumentException naming what is wrong */
  static Saved parse(String text) {
    if (!text.endsWith("\n")) {
      throw new IllegalArgumentException("no line end");
    }
    String[] fields = text.substring(0, text.length() - 1).split(" ", -1);
    if (fields.length != 3 || !fields[0].equals(VERSION)) {
      throw new IllegalArgumentException("expected '" + VERSION + " <id> <password>'");
    }
    if (!fields[1].matches("[0-9a-f]{1,16}")) {
      throw new IllegalArgumentException("bad session id");
    }
    if (!fields[2].matches("([0-9a-f]{2}){1," + MAX_PASSWORD_BYTES + "}")) {
      throw new IllegalArgumentException("bad session password");
    }
    return new Saved(Long.parseUnsignedLong(fields[1], 16), HexFormat.of().parseHex(fields[2]));
  }

  /**
   * Ends {@code session} on the ensemble at {@code connectString}, if it is still alive: reattaches
   * to it and closes it, within about {@code within}. Returns whether it was alive and closed.
   * Never throws: a failure leaves the session to its expiry.
   *
   * @param tls TLS to ZooKeeper, or null
   */
  static boolean end(
      Saved session, String connectString, Duration within, ZooKeeperTls tls, int nodeId) {
    CountDownLatch answered = new CountDownLatch(1);
    AtomicReference<KeeperState> state = new AtomicReference<>();
    Watcher watcher =
        event -> {
          if (event.getType() == Watcher.Event.EventType.None) {
            state.set(event.getState());
            if (event.getState() != KeeperState.Disconnected) {
              answered.countDown();
            }
          }
        };
    int timeoutMs = (int) Math.min(Integer.MAX_VALUE, Math.max(1, within.toMillis()));
    ZooKeeper zk = null;
    try {
      zk =
          tls == null
              ? new ZooKeeper(
                  connectString, timeoutMs, watcher, session.id(), session.password, false)
              : new ZooKeeper(
                  connectString,
                  timeoutMs,
                  watcher,
                  session.id(),
                  session.password,
                  false,
                  new org.apache.zookeeper.client.StaticHostProvider(
                      new org.apache.zookeeper.client.ConnectStringParser(connectString)
                          .getServerAddresses()),
                  tls.clientConfig());
      if (!answered.await(within.toMillis(), TimeUnit.MILLISECONDS)) {
        LOG.log(
            Level.INFO,
            "node {0}: no answer about its previous process''s ZooKeeper session {1} within {2};"
                + " it ends when it expires",
            nodeId,
            session,
            within);
        return false;
      }
      if (state.get() != KeeperState.SyncConnected) {
        return false; // expired already (or closed by a graceful stop), or not ours to reattach
      }
      zk.close(); // closes the session on the ensemble: its ephemeral znodes go now
      zk = null;
      LOG.log(
          Level.INFO,
          "node {0}: ended the ZooKeeper session {1} of its previous process (killed): its"
              + " registration and range latch entries go now, not at the session''s expiry",
          nodeId,
          session);
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } catch (Exception e) {
      LOG.log(
          Level.INFO,
          "node {0}: could not end its previous process''s ZooKeeper session {1} ({2}); it ends"
              + " when it expires",
          nodeId,
          session,
          e.toString());
      return false;
    } finally {
      if (zk != null) {
        try {
          zk.close();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        } catch (RuntimeException ignored) {
          // best effort
        }
      }
    }
  }
}
