package io.frsm.server.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.server.zk.ZooKeeperTls;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.zookeeper.client.ZKClientConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code zookeeper.tls.*} keys (issue 24: TLS to ZooKeeper as an option): read from the file's
 * {@code zookeeper.tls} group or the environment, refused at load when malformed or incomplete, and
 * turned into one session's {@link ZKClientConfig} without touching the JVM's system properties.
 */
class ZooKeeperTlsConfigTest {
  private static final String BASE =
      "node:\n  id: 3\n  dataDirectory: /d\n  peerAddress: 127.0.0.1:7400\n  clientAddress: 127.0.0.1:7500\nsecurity:\n  insecure: true\n"
          + "zookeeper:\n  connect: zk:2281\n";

  private static FrsmConfig parse(String tlsLines) {
    return ConfigLoader.parse(BASE + "  tls:\n" + tlsLines, "t", Map.of());
  }

  private static ConfigException refused(String tlsLines) {
    return assertThrows(ConfigException.class, () -> parse(tlsLines), tlsLines);
  }

  @Test
  void theTlsGroup_isRead_andGivesTheSessionsTls() {
    FrsmConfig c =
        parse(
            "    trustStore: /etc/frsm/zk-ca.pem\n"
                + "    keyStore: /etc/frsm/zk-client.p12\n"
                + "    keyStorePasswordFile: /etc/frsm/zk-client.password\n"
                + "    hostnameVerification: false\n");
    ZooKeeperTls tls = ZooKeeperKeys.tls(c);
    assertEquals(Path.of("/etc/frsm/zk-ca.pem"), tls.trustStore());
    assertEquals(Path.of("/etc/frsm/zk-client.p12"), tls.keyStore());
    assertEquals(Path.of("/etc/frsm/zk-client.password"), tls.keyStorePasswordFile());
    assertNull(tls.trustStorePasswordFile());
    assertFalse(tls.hostnameVerification());
  }

  @Test
  void withoutATrustStore_theSessionIsPlaintext() {
    assertNull(ZooKeeperKeys.tls(ConfigLoader.parse(BASE, "t", Map.of())));
  }

  @Test
  void hostileOrIncompleteValues_areRefusedAtLoad_namingTheKey() {
    ConfigException format = refused("    trustStore: /etc/frsm/zk-ca.txt\n");
    assertTrue(format.getMessage().contains("'zookeeper.tls.trustStore'"), format.getMessage());
    assertTrue(format.getMessage().contains(".pem"), format.getMessage());
    refused("    trustStore: /etc/frsm/\n"); // a directory, no file name with an extension
    refused("    trustStore: \"\"\n");
    refused("    trustStore: [a.pem, b.pem]\n");
    refused("    trustStore: /ca.pem\n    keyStore: /etc/frsm/client.key\n");
    refused("    trustStore: /ca.pem\n    hostnameVerification: maybe\n");

    ConfigException noTrust = refused("    keyStore: /etc/frsm/client.pem\n");
    assertTrue(
        noTrust.getMessage().contains("'zookeeper.tls.keyStore'")
            && noTrust.getMessage().contains("zookeeper.tls.trustStore"),
        noTrust.getMessage());
    refused("    trustStorePasswordFile: /etc/frsm/pw\n");
    ConfigException noKey = refused("    trustStore: /ca.pem\n    keyStorePasswordFile: /pw\n");
    assertTrue(noKey.getMessage().contains("zookeeper.tls.keyStore"), noKey.getMessage());

    ConfigException unknown = refused("    trustStores: /ca.pem\n");
    assertTrue(unknown.getMessage().contains("zookeeper.tls.trustStores"), unknown.getMessage());
    ConfigException deep = refused("    trustStore:\n      location: /ca.pem\n");
    assertTrue(deep.getMessage().contains("nested too deep"), deep.getMessage());
  }

  @Test
  void theEnvironment_setsTheKeys_forNodesAndForTheCli() {
    Map<String, String> env =
        Map.of(
            "FRSM_ZOOKEEPER_TLS_TRUST_STORE", "/ca.jks",
            "FRSM_ZOOKEEPER_TLS_TRUST_STORE_PASSWORD_FILE", "/ca.password",
            "FRSM_ZOOKEEPER_TLS_HOSTNAME_VERIFICATION", "false");
    FrsmConfig node = ConfigLoader.parse(BASE, "t", env);
    assertEquals(Path.of("/ca.jks"), node.get(ZooKeeperKeys.TLS_TRUST_STORE));
    ZooKeeperTls cli = ZooKeeperKeys.tlsFromEnvironment(env);
    assertEquals(ZooKeeperKeys.tls(node), cli);
    assertNull(ZooKeeperKeys.tlsFromEnvironment(Map.of()));

    assertThrows(
        ConfigException.class,
        () -> ZooKeeperKeys.tlsFromEnvironment(Map.of("FRSM_ZOOKEEPER_TLS_KEY_STORE", "/k.pem")));
    assertThrows(
        ConfigException.class,
        () ->
            ZooKeeperKeys.tlsFromEnvironment(
                Map.of(
                    "FRSM_ZOOKEEPER_TLS_TRUST_STORE", "/ca.pem",
                    "FRSM_ZOOKEEPER_TLS_KEY_STORE_PASSWORD_FILE", "/pw")));
    ConfigException format =
        assertThrows(
            ConfigException.class,
            () ->
                ZooKeeperKeys.tlsFromEnvironment(
                    Map.of("FRSM_ZOOKEEPER_TLS_TRUST_STORE", "/ca.exe")));
    assertTrue(format.getMessage().contains("zookeeper.tls.trustStore"), format.getMessage());
    assertThrows(
        ConfigException.class,
        () ->
            ZooKeeperKeys.tlsFromEnvironment(
                Map.of(
                    "FRSM_ZOOKEEPER_TLS_TRUST_STORE", "/ca.pem",
                    "FRSM_ZOOKEEPER_TLS_HOSTNAME_VERIFICATION", "yes please")));
  }

  @Test
  void aSessionsConfig_carriesTheStores_andLeavesTheSystemPropertiesAlone(@TempDir Path dir)
      throws Exception {
    Path ca = Files.writeString(dir.resolve("ca.pem"), "x");
    Path key = Files.writeString(dir.resolve("client.pem"), "x");
    Path password = Files.writeString(dir.resolve("client.password"), "secret");
    ZooKeeperTls tls = new ZooKeeperTls(ca, null, key, password, true);
    Map<Object, Object> before = Map.copyOf(System.getProperties());

    ZKClientConfig c = tls.clientConfig();
    assertEquals("true", c.getProperty(ZKClientConfig.SECURE_CLIENT));
    assertEquals(
        "org.apache.zookeeper.ClientCnxnSocketNetty",
        c.getProperty(ZKClientConfig.ZOOKEEPER_CLIENT_CNXN_SOCKET));
    assertEquals(ca.toString(), c.getProperty("zookeeper.ssl.trustStore.location"));
    assertEquals(key.toString(), c.getProperty("zookeeper.ssl.keyStore.location"));
    assertEquals(password.toString(), c.getProperty("zookeeper.ssl.keyStore.passwordPath"));
    assertEquals("true", c.getProperty("zookeeper.ssl.hostnameVerification"));
    assertEquals(before, Map.copyOf(System.getProperties()), "no JVM-wide setting changed");
    assertTrue(c != tls.clientConfig(), "a fresh config per session");
  }

  @Test
  void anUnreadableStore_isRefusedWhenTheSessionIsMade_namingTheKey(@TempDir Path dir)
      throws Exception {
    Path ca = Files.writeString(dir.resolve("ca.pem"), "x");
    IllegalArgumentException missingTrust =
        assertThrows(
            IllegalArgumentException.class,
            () -> new ZooKeeperTls(dir.resolve("none.pem"), null, null, null, true).clientConfig());
    assertTrue(
        missingTrust.getMessage().contains("zookeeper.tls.trustStore"), missingTrust.getMessage());
    IllegalArgumentException missingKey =
        assertThrows(
            IllegalArgumentException.class,
            () -> new ZooKeeperTls(ca, null, dir.resolve("k.pem"), null, true).clientConfig());
    assertTrue(missingKey.getMessage().contains("zookeeper.tls.keyStore"), missingKey.getMessage());
    assertThrows(
        IllegalArgumentException.class,
        () -> new ZooKeeperTls(ca, null, dir, null, true).clientConfig(),
        "a directory is no store");
  }
}
