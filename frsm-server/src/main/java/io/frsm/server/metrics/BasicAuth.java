package io.frsm.server.metrics;

import io.frsm.server.config.ConfigException;
import io.frsm.server.config.MetricsKeys;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Base64;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * The one user and password the endpoint's {@code /metrics} admits (HTTP basic authentication, RFC
 * 7617). Only a SHA-256 digest of {@code user:password} is kept; a presented {@code Authorization}
 * header is hashed and compared with {@link MessageDigest#isEqual}, so the time a check takes
 * depends neither on how much of the credentials matched nor on their length.
 *
 * <p>Immutable and thread-safe.
 */
public final class BasicAuth {
  private static final System.Logger LOG = System.getLogger(BasicAuth.class.getName());
  private static final String SCHEME = "basic ";

  private final String user;
  private final byte[] credentialsDigest;

  private BasicAuth(String user, byte[] credentialsDigest) {
    this.user = user;
    this.credentialsDigest = credentialsDigest;
  }

  /**
   * Admits {@code user} with {@code password} (UTF-8 bytes; not kept).
   *
   * @throws IllegalArgumentException if the user is empty or holds a colon, or the password is
   *     empty
   */
  public static BasicAuth of(String user, byte[] password) {
    Objects.requireNonNull(user, "user");
    Objects.requireNonNull(password, "password");
    if (user.isEmpty() || user.indexOf(':') >= 0) {
      throw new IllegalArgumentException("a basic-auth user is not empty and has no ':'");
    }
    if (password.length == 0) {
      throw new IllegalArgumentException("an empty basic-auth password");
    }
    byte[] prefix = (user + ":").getBytes(StandardCharsets.UTF_8);
    byte[] credentials = Arrays.copyOf(prefix, prefix.length + password.length);
    System.arraycopy(password, 0, credentials, prefix.length, password.length);
    try {
      return new BasicAuth(user, sha256(credentials));
    } finally {
      Arrays.fill(credentials, (byte) 0);
    }
  }

  /**
   * Admits {@code user} with the password in {@code passwordFile}: its bytes, less one trailing
   * line break. Warns when every user of the machine may read the file.
   *
   * @throws ConfigException naming {@link MetricsKeys#BASIC_AUTH_PASSWORD_FILE} if the file cannot
   *     be read or holds no password
   */
  public static BasicAuth fromPasswordFile(String user, Path passwordFile) {
    String key = MetricsKeys.BASIC_AUTH_PASSWORD_FILE.name();
    byte[] password;
    try {
      password = withoutTrailingLineBreak(Files.readAllBytes(passwordFile));
    } catch (IOException e) {
      throw new ConfigException(
          "config key '" + key + "': cannot read " + passwordFile + ": " + e, e);
    }
    try {
      if (password.length == 0) {
        throw new ConfigException("config key '" + key + "': " + passwordFile + " is empty");
      }
      warnIfReadableByOthers(passwordFile);
      return of(user, password);
    } finally {
      Arrays.fill(password, (byte) 0);
    }
  }

  /**
   * Whether an {@code Authorization} header value (null when the request had none) carries this
   * user and password.
   */
  public boolean admits(String authorization) {
    byte[] presented = decode(authorization);
    // Hash even a malformed header, so a refusal takes the same time whatever was sent.
    return MessageDigest.isEqual(credentialsDigest, sha256(presented));
  }

  public String user() {
    return user;
  }

  /** The credentials of a {@code Basic} header; empty if there are none or they do not decode. */
  private static byte[] decode(String authorization) {
    if (authorization == null
        || authorization.length() < SCHEME.length()
        || !authorization.substring(0, SCHEME.length()).toLowerCase(Locale.ROOT).equals(SCHEME)) {
      return new byte[0];
    }
    try {
      return Base64.getDecoder().decode(authorization.substring(SCHEME.length()).trim());
    } catch (IllegalArgumentException notBase64) {
      return new byte[0];
    }
  }

  private static byte[] withoutTrailingLineBreak(byte[] bytes) {
    int end = bytes.length;
    if (end > 0 && bytes[end - 1] == '\n') {
      end--;
      if (end > 0 && bytes[end - 1] == '\r') {
        end--;
      }
    }
    if (end == bytes.length) {
      return bytes;
    }
    byte[] trimmed = Arrays.copyOf(bytes, end);
    Arrays.fill(bytes, (byte) 0);
    return trimmed;
  }

  private static void warnIfReadableByOthers(Path file) {
    try {
      Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(file);
      if (permissions.contains(PosixFilePermission.OTHERS_READ)) {
        LOG.log(
            System.Logger.Level.WARNING,
            "{0} ({1}) is readable by every user of the machine: chmod it to 600 or 640",
            file,
            MetricsKeys.BASIC_AUTH_PASSWORD_FILE.name());
      }
    } catch (UnsupportedOperationException | IOException notPosix) {
      // No POSIX permissions here, or they cannot be read: the file itself was read, so go on.
    }
  }

  private static byte[] sha256(byte[] bytes) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError("every Java platform implements SHA-256", e);
    }
  }

  @Override
  public String toString() {
    return "BasicAuth{user=" + user + "}";
  }
}
