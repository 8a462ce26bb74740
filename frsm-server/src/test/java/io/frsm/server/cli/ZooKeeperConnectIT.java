package io.frsm.server.cli;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.client.transport.tls.CertificateIdentity;
import io.frsm.client.transport.tls.Role;
import io.frsm.client.transport.tls.TlsFiles;
import io.frsm.server.certs.CertificateAuthority;
import io.frsm.server.zk.SecureZooKeeper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * {@code frsm cli} and {@code frsm admin} reach a TLS-only ZooKeeper with the {@code
 * FRSM_ZOOKEEPER_TLS_*} variables (issue 24: TLS to ZooKeeper as an option); without them they do
 * not connect, and a malformed variable is a usage error before any connection.
 */
class ZooKeeperConnectIT {
  private static final CommandSpec SPEC = new CommandLine(CommandSpec.create()).getCommandSpec();

  @Test
  void theTlsVariables_reachASecurePort_andAMalformedOneIsAUsageError(@TempDir Path dir)
      throws Exception {
    CertificateAuthority ca = CertificateAuthority.create("cli", Duration.ofDays(1));
    TlsFiles client =
        ca.issue(
            dir.resolve("certs"),
            "operator",
            new CertificateIdentity.Client("cli", "operator", EnumSet.of(Role.READ)),
            Duration.ofDays(1));
    Path keyStore = dir.resolve("zookeeper-client.pem");
    Files.writeString(
        keyStore,
        Files.readString(client.privateKey()) + Files.readString(client.certificateChain()));
    try (SecureZooKeeper zookeeper =
        SecureZooKeeper.start(dir.resolve("secure-zk"), client.caBundle())) {
      Map<String, String> env =
          Map.of(
              "FRSM_ZOOKEEPER_TLS_TRUST_STORE", zookeeper.serverCa().toString(),
              "FRSM_ZOOKEEPER_TLS_KEY_STORE", keyStore.toString());
      try (CuratorFramework zk =
          ZooKeeperConnect.client(SPEC, zookeeper.secureConnectString(), null, env)) {
        zk.start();
        assertTrue(zk.blockUntilConnected(30, TimeUnit.SECONDS), "connected over TLS");
        assertNotNull(zk.checkExists().forPath("/zookeeper"));
      }
      try (CuratorFramework plain =
          ZooKeeperConnect.client(SPEC, zookeeper.secureConnectString(), null, Map.of())) {
        plain.start();
        assertFalse(plain.blockUntilConnected(3, TimeUnit.SECONDS), "plaintext connected");
      }
    }

    ParameterException format =
        assertThrows(
            ParameterException.class,
            () ->
                ZooKeeperConnect.client(
                    SPEC,
                    "127.0.0.1:1",
                    null,
                    Map.of("FRSM_ZOOKEEPER_TLS_TRUST_STORE", "/ca.txt")));
    assertTrue(format.getMessage().contains("zookeeper.tls.trustStore"), format.getMessage());
    ParameterException missing =
        assertThrows(
            ParameterException.class,
            () ->
                ZooKeeperConnect.client(
                    SPEC,
                    "127.0.0.1:1",
                    null,
                    Map.of("FRSM_ZOOKEEPER_TLS_TRUST_STORE", dir.resolve("none.pem").toString())));
    assertTrue(missing.getMessage().contains("cannot be read"), missing.getMessage());
    assertThrows(
        ParameterException.class,
        () ->
            ZooKeeperConnect.client(
                SPEC, "127.0.0.1:1", null, Map.of("FRSM_ZOOKEEPER_TLS_KEY_STORE", "/k.pem")));
  }
}
