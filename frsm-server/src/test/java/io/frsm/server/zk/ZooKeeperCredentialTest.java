package io.frsm.server.zk;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.server.config.ConfigException;
import io.frsm.server.config.ConfigLoader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ZooKeeperCredentialTest {
  @Test
  void read_acceptsOneLine_withOrWithoutALineBreak(@TempDir Path dir) throws Exception {
    for (String text : new String[] {"frsm:s3cret-pw", "frsm:s3cret-pw\n", "frsm:s3cret-pw\r\n"}) {
      Path file = dir.resolve("c" + text.length());
      Files.writeString(file, text);
      ZooKeeperCredential c = ZooKeeperCredential.read(file);
      assertEquals("frsm", c.user());
      assertArrayEquals("frsm:s3cret-pw".getBytes(StandardCharsets.UTF_8), c.authentication());
    }
  }

  @Test
  void digestId_isZooKeepersDigestOfUserAndPassword() {
    // sha1("frsm:s3cret-pw"), base64: what ZooKeeper's DigestAuthenticationProvider records.
    String id = ZooKeeperCredential.of("frsm:s3cret-pw").digestId();
    assertTrue(id.matches("frsm:[A-Za-z0-9+/]{27}="), id);
    assertEquals(id, ZooKeeperCredential.of("frsm:s3cret-pw").digestId());
    assertNotEquals(id, ZooKeeperCredential.of("frsm:s3cret-pX").digestId());
  }

  @Test
  void malformedCredentials_areRefused_withoutQuotingThePassword(@TempDir Path dir)
      throws Exception {
    String[] bad = {
      "",
      "no-colon",
      ":password1",
      "bad user:password1",
      "frsm:short",
      "frsm:has space1",
      "frsm:two\nlines",
      "frsm:tab\tinside",
      "frsm:nonascii\u00e9x",
      "u".repeat(65) + ":password1"
    };
    for (String text : bad) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> ZooKeeperCredential.of(text), text);
      String password = text.contains(":") ? text.substring(text.indexOf(':') + 1) : "";
      if (password.length() >= 4) {
        assertFalse(e.getMessage().contains(password), e.getMessage());
      }
    }
    Path missing = dir.resolve("missing");
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> ZooKeeperCredential.read(missing))
            .getMessage()
            .contains("cannot read ZooKeeper credential file " + missing));
    Path huge = dir.resolve("huge");
    Files.write(huge, new byte[ZooKeeperCredential.MAX_FILE_BYTES + 1]);
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> ZooKeeperCredential.read(huge))
            .getMessage()
            .contains("is over"));
    Path binary = dir.resolve("binary");
    Files.write(binary, new byte[] {'u', ':', 0, 1, 2, 3, 4, 5, 6, 7, 8});
    assertThrows(IllegalArgumentException.class, () -> ZooKeeperCredential.read(binary));
  }

  @Test
  void create_writesARandomOwnerOnlyCredential_andNeverOverwritesOne(@TempDir Path dir)
      throws Exception {
    Path a = dir.resolve("a");
    Path b = dir.resolve("b");
    ZooKeeperCredential first = ZooKeeperCredential.create(a, "frsm-node");
    ZooKeeperCredential second = ZooKeeperCredential.create(b, "frsm-node");
    assertEquals(first.digestId(), ZooKeeperCredential.read(a).digestId());
    assertNotEquals(first.digestId(), second.digestId(), "each credential has its own password");
    if (Files.getFileStore(a).supportsFileAttributeView("posix")) {
      assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(a)));
    }
    assertThrows(FileAlreadyExistsException.class, () -> ZooKeeperCredential.create(a, "x"));
    assertEquals(first.digestId(), ZooKeeperCredential.read(a).digestId());
  }

  @Test
  void toString_hidesThePassword() {
    String shown = ZooKeeperCredential.of("frsm:s3cret-pw").toString();
    assertTrue(shown.contains("frsm"), shown);
    assertFalse(shown.contains("s3cret"), shown);
  }

  @Test
  void aReaderWithTheNodesOwnUser_isRefused() {
    ZooKeeperCredential node = ZooKeeperCredential.of("frsm:password-1");
    assertThrows(
        IllegalArgumentException.class,
        () -> ZooKeeperAccess.acl(node, ZooKeeperCredential.of("frsm:password-2")));
    assertEquals(2, ZooKeeperAccess.acl(node, ZooKeeperCredential.of("r:password-2")).size());
  }

  private static void parse(String yaml, String source, Map<String, String> environment) {
    ConfigLoader.load(new StringReader(yaml), source, environment);
  }

  /** A TLS node must name a ZooKeeper credential; a reader needs the node's own credential. */
  @Test
  void config_withoutACredential_isRefusedUnlessInsecure() {
    String base =
        "node:\n  id: 1\n  dataDirectory: /d\n  peerAddress: 127.0.0.1:7400\n  clientAddress: 127.0.0.1:7500\nzookeeper:\n  connect: z:1\n";
    String tls =
        "security:\n  caBundle: /t/ca.pem\n  certificateChain: /t/n.pem\n"
            + "  privateKey: /t/k.pem\n";
    ConfigException refused =
        assertThrows(ConfigException.class, () -> parse(base + tls, "t", Map.of()));
    assertTrue(refused.getMessage().contains("'zookeeper.credentialFile'"), refused.getMessage());
    assertTrue(refused.getMessage().contains("security.insecure"), refused.getMessage());
    parse(base + "  credentialFile: /t/zk.credential\n" + tls, "t", Map.of()); // accepted
    parse(base + "security:\n  insecure: true\n", "t", Map.of()); // accepted
    ConfigException readerAlone =
        assertThrows(
            ConfigException.class,
            () ->
                parse(
                    base
                        + "  readerCredentialFile: /t/r.credential\n"
                        + "security:\n  insecure: true\n",
                    "t",
                    Map.of()));
    assertTrue(
        readerAlone.getMessage().contains("'zookeeper.readerCredentialFile'"),
        readerAlone.getMessage());
  }
}
