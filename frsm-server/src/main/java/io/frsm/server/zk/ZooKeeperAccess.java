package io.frsm.server.zk;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;

/**
 * How frsm opens ZooKeeper sessions and guards its znodes (docs/OPERATIONS.md "ZooKeeper
 * authentication"). With a {@link ZooKeeperCredential} every session authenticates in the {@code
 * digest} scheme and every znode frsm creates grants all permissions to that identity alone, so an
 * anonymous session, or one with another credential, can neither read nor change a member record, a
 * lease or the cluster's shape. An optional reader identity is granted read access only: what a
 * client that finds the cluster through ZooKeeper needs, without the power to change it. Without
 * one (only for {@code security.insecure: true}) znodes are open to anyone, as ZooKeeper makes them
 * by default.
 */
public final class ZooKeeperAccess {
  private static final System.Logger LOG = System.getLogger(ZooKeeperAccess.class.getName());

  /** The parent of every cluster's root ({@link ZkLayout#root()}). */
  static final String FRSM_ROOT = "/frsm";

  private ZooKeeperAccess() {}

  /**
   * A Curator builder for {@code connectString} that authenticates with {@code credential}; a plain
   * builder if {@code credential} is null. For a session that only reads (a client, the CLI): what
   * it creates would carry ZooKeeper's open default.
   */
  public static CuratorFrameworkFactory.Builder builder(
      String connectString, ZooKeeperCredential credential) {
    CuratorFrameworkFactory.Builder b =
        CuratorFrameworkFactory.builder().connectString(connectString);
    return credential == null
        ? b
        : b.authorization(ZooKeeperCredential.SCHEME, credential.authentication());
  }

  /**
   * A Curator builder for a node's session: authenticates with {@code credential} and creates every
   * znode (parents included) with {@link #acl}{@code (credential, reader)}; a plain builder if
   * {@code credential} is null.
   */
  public static CuratorFrameworkFactory.Builder builder(
      String connectString, ZooKeeperCredential credential, ZooKeeperCredential reader) {
    CuratorFrameworkFactory.Builder b = builder(connectString, credential);
    if (credential == null) {
      return b;
    }
    List<ACL> acl = acl(credential, reader);
    return b.aclProvider(
        new ACLProvider() {
          @Override
          public List<ACL> getDefaultAcl() {
            return acl;
          }

          @Override
          public List<ACL> getAclForPath(String path) {
            return acl;
          }
        });
  }

  /**
   * All permissions to {@code credential}'s identity, read to {@code reader}'s if not null, none to
   * anyone else.
   */
  public static List<ACL> acl(ZooKeeperCredential credential, ZooKeeperCredential reader) {
    ACL all = new ACL(ZooDefs.Perms.ALL, new Id(ZooKeeperCredential.SCHEME, credential.digestId()));
    // Not List.of: ZooKeeper's ACL check asks the list whether it contains null, which an
    // immutable List.of answers with a NullPointerException.
    List<ACL> acl = new ArrayList<>();
    acl.add(all);
    if (reader == null) {
      return Collections.unmodifiableList(acl);
    }
    if (reader.user().equals(credential.user())) {
      throw new IllegalArgumentException(
          "the ZooKeeper reader must be another user than the nodes' own (" + reader.user() + ")");
    }
    acl.add(new ACL(ZooDefs.Perms.READ, new Id(ZooKeeperCredential.SCHEME, reader.digestId())));
    return Collections.unmodifiableList(acl);
  }

  /**
   * Gives {@code /frsm} and every znode under the cluster's root {@code acl} where an earlier node
   * created them with another ACL: open to anyone (no credential then), or with another reader.
   * Children first and the cluster's root last, so a root that already carries the ACL means an
   * earlier call finished (nodes create every later znode with it) and the walk is skipped.
   *
   * <p>REQUIRES: {@code zk} authenticated with {@code credential} and connected.
   *
   * @throws IllegalStateException if a znode belongs to another identity (this credential may not
   *     read or change it): the node must not run beside a cluster it cannot guard
   */
  public static void secureExisting(
      CuratorFramework zk, ZkLayout layout, ZooKeeperCredential credential, List<ACL> acl)
      throws Exception {
    Objects.requireNonNull(credential, "credential");
    try {
      if (zk.checkExists().forPath(layout.root()) != null
          && !acl.equals(aclOf(zk, layout.root()))) {
        int changed = secureTree(zk, layout.root(), acl);
        LOG.log(
            Level.WARNING,
            "ZooKeeper: {0} znodes under {1} had another ACL (open to anyone, or another reader);"
                + " they now grant access to {2} (and its reader, if any) only",
            changed,
            layout.root(),
            credential.user());
      }
      if (zk.checkExists().forPath(FRSM_ROOT) != null && !acl.equals(aclOf(zk, FRSM_ROOT))) {
        setAcl(zk, FRSM_ROOT, acl);
      }

    } catch (KeeperException.NoAuthException e) {
      // ZooKeeper 3.9 checks READ even on exists(): a znode this identity may not read.
      throw foreign(e.getPath() == null ? layout.root() : e.getPath());
    }
  }

  /** Post-order: {@code path}'s children, then {@code path}. Returns how many ACLs it changed. */
  private static int secureTree(CuratorFramework zk, String path, List<ACL> acl) throws Exception {
    int changed = 0;
    List<String> children;
    try {
      children = zk.getChildren().forPath(path);
    } catch (KeeperException.NoNodeException gone) {
      return 0; // an ephemeral znode that ended meanwhile
    } catch (KeeperException.NoAuthException e) {
      throw foreign(path);
    }
    for (String child : children) {
      changed += secureTree(zk, path + "/" + child, acl);
    }
    List<ACL> current;
    try {
      current = aclOf(zk, path);
    } catch (KeeperException.NoNodeException gone) {
      return changed;
    }
    if (!acl.equals(current)) {
      setAcl(zk, path, acl);
      changed++;
    }
    return changed;
  }

  private static List<ACL> aclOf(CuratorFramework zk, String path) throws Exception {
    try {
      return zk.getACL().forPath(path);
    } catch (KeeperException.NoAuthException e) {
      throw foreign(path);
    }
  }

  private static void setAcl(CuratorFramework zk, String path, List<ACL> acl) throws Exception {
    try {
      zk.setACL().withACL(acl).forPath(path);
    } catch (KeeperException.NoNodeException gone) {
      // An ephemeral znode that ended meanwhile: nothing left to guard.
    } catch (KeeperException.NoAuthException e) {
      throw foreign(path);
    }
  }

  private static IllegalStateException foreign(String path) {
    return new IllegalStateException(
        "ZooKeeper znode "
            + path
            + " belongs to another identity: this node's zookeeper.credentialFile may not change"
            + " it (another cluster's credential, or the file changed since the cluster formed)");
  }
}
