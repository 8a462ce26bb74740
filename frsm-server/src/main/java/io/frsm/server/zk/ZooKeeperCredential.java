package io.frsm.server.zk;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Objects;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;

/**
 * The identity frsm authenticates to ZooKeeper with, in ZooKeeper's built-in {@code digest} scheme:
 * a user name and a password, read from a file of one line {@code user:password}
 * (docs/OPERATIONS.md "ZooKeeper authentication"). Read from a file named in the config so the
 * password never appears on a command line or in a process listing. {@link #toString} never shows
 * the password.
 */
public final class ZooKeeperCredential {
  /** The scheme ZooKeeper servers accept without configuration. */
  public static final String SCHEME = "digest";

  /** A credential file is one short line; anything larger is not one. */
  static final int MAX_FILE_BYTES = 4096;

  private static final String USER_PATTERN = "[A-Za-z0-9_.-]{1,64}";

  private final String user;
  private final String password;

  private ZooKeeperCredential(String user, String password) {
    this.user = user;
    this.password = password;
  }

  /**
   * {@code user:password}: the user 1-64 characters of {@code [A-Za-z0-9_.-]}, the password 8-1024
   * printable ASCII characters other than space.
   *
   * @throws IllegalArgumentException naming what is wrong (never quoting the password)
   */
  public static ZooKeeperCredential of(String userAndPassword) {
    Objects.requireNonNull(userAndPassword, "userAndPassword");
    int colon = userAndPassword.indexOf(':');
    if (colon < 0) {
      throw new IllegalArgumentException("a ZooKeeper credential is one line user:password");
    }
    String user = userAndPassword.substring(0, colon);
    String password = userAndPassword.substring(colon + 1);
    if (!user.matches(USER_PATTERN)) {
      throw new IllegalArgumentException(
          "a ZooKeeper credential's user must be 1-64 characters of [A-Za-z0-9_.-]");
    }
    if (password.length() < 8 || password.length() > 1024) {
      throw new IllegalArgumentException(
          "the ZooKeeper password of user " + user + " must be 8-1024 characters");
    }
    for (int i = 0; i < password.length(); i++) {
      char c = password.charAt(i);
      if (c <= ' ' || c > '~') {
        throw new IllegalArgumentException(
            "the ZooKeeper password of user "
                + user
                + " must be printable ASCII without spaces (character "
                + (i + 1)
                + " is not)");
      }
    }
    return new ZooKeeperCredential(user, password);
  }

  /**
   * Reads {@code file}: one line {@code user:password}, an optional line break after it.
   *
   * @throws IllegalArgumentException if the file cannot be read or holds no credential
   */
  public static ZooKeeperCredential read(Path file) {
    byte[] bytes;
    try {
      if (Files.size(file) > MAX_FILE_BYTES) {
        throw new IllegalArgumentException(
            "ZooKeeper credential file " + file + " is over " + MAX_FILE_BYTES + " bytes");
      }
      bytes = Files.readAllBytes(file);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "cannot read ZooKeeper credential file " + file + ": " + e);
    }
    String text = new String(bytes, StandardCharsets.US_ASCII);
    if (text.endsWith("\r\n")) {
      text = text.substring(0, text.length() - 2);
    } else if (text.endsWith("\n")) {
      text = text.substring(0, text.length() - 1);
    }
    try {
      return of(text);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "ZooKeeper credential file " + file + ": " + e.getMessage());
    }
  }

  /**
   * Writes a new credential for {@code user} with a random password to {@code file}, readable by
   * its owner only where the file system has POSIX permissions; for {@code frsm local} and tests.
   *
   * @throws FileAlreadyExistsException if {@code file} exists (a credential is never overwritten:
   *     the znodes created with it would become unreachable)
   */
  public static ZooKeeperCredential create(Path file, String user) throws IOException {
    byte[] secret = new byte[24];
    new SecureRandom().nextBytes(secret);
    ZooKeeperCredential credential =
        of(user + ":" + Base64.getUrlEncoder().withoutPadding().encodeToString(secret));
    Files.write(
        file,
        (credential.user + ":" + credential.password + "\n").getBytes(StandardCharsets.US_ASCII),
        StandardOpenOption.CREATE_NEW,
        StandardOpenOption.WRITE);
    try {
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    } catch (UnsupportedOperationException notPosix) {
      // The file system has no owner-only mode; the file keeps its directory's protection.
    }
    return credential;
  }

  public String user() {
    return user;
  }

  /** What a session sends to authenticate: {@code user:password} in UTF-8. */
  public byte[] authentication() {
    return (user + ":" + password).getBytes(StandardCharsets.UTF_8);
  }

  /**
   * The identity ZooKeeper records for a session that authenticated with this credential, as an ACL
   * names it: {@code user:base64(sha1(user:password))}.
   */
  public String digestId() {
    try {
      return DigestAuthenticationProvider.generateDigest(user + ":" + password);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("this JVM has no SHA-1, which ZooKeeper's digest needs", e);
    }
  }

  @Override
  public String toString() {
    return "ZooKeeperCredential[" + user + ":(hidden)]";
  }
}
