package io.frsm.server.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.client.transport.tls.CertificateIdentity;
import io.frsm.client.transport.tls.Role;
import io.frsm.client.transport.tls.TlsContexts;
import io.frsm.client.transport.tls.TlsFiles;
import io.netty.handler.ssl.SslProvider;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code frsm certs} makes files the transport loads, naming the identities asked for. */
class CertsCommandTest {
  private static int run(List<String> args, ByteArrayOutputStream out) {
    return Frsm.run(
        args,
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
  }

  private static CertificateIdentity identity(Path dir, String name) {
    TlsFiles files =
        new TlsFiles(
            dir.resolve("ca.pem"), dir.resolve(name + ".pem"), dir.resolve(name + "-key.pem"));
    return TlsContexts.load(files, SslProvider.JDK, Duration.ofSeconds(1)).self();
  }

  @Test
  void nodesAndClients_areIssued_byOneCa_reusedOnTheNextRun(@TempDir Path dir) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    assertEquals(
        0,
        run(
            List.of(
                "certs",
                "--dir",
                dir.toString(),
                "--cluster",
                "prod",
                "--nodes",
                "2",
                "--client",
                "app=read,write"),
            out),
        out.toString(StandardCharsets.UTF_8));
    assertEquals(new CertificateIdentity.Node("prod", 1), identity(dir, "node-1"));
    assertEquals(new CertificateIdentity.Node("prod", 2), identity(dir, "node-2"));
    assertEquals(
        new CertificateIdentity.Client("prod", "app", EnumSet.of(Role.READ, Role.WRITE)),
        identity(dir, "client-app"));
    assertEquals(
        "rw-------",
        PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("ca-key.pem"))));
    String ca = Files.readString(dir.resolve("ca.pem"));

    assertEquals(
        0,
        run(
            List.of("certs", "--dir", dir.toString(), "--cluster", "prod", "--client", "ops=admin"),
            out));
    assertEquals(ca, Files.readString(dir.resolve("ca.pem")), "the CA is reused");
    assertEquals(
        new CertificateIdentity.Client("prod", "ops", EnumSet.of(Role.ADMIN)),
        identity(dir, "client-ops"));
  }

  @Test
  void badArguments_areRefused(@TempDir Path dir) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    assertEquals(
        2,
        run(
            List.of("certs", "--dir", dir.toString(), "--cluster", "prod", "--client", "app=root"),
            out));
    assertEquals(
        2,
        run(List.of("certs", "--dir", dir.toString(), "--cluster", "bad id", "--nodes", "1"), out));
    assertEquals(2, run(List.of("certs", "--dir", dir.toString(), "--cluster", "prod"), out));
    assertTrue(Files.notExists(dir.resolve("ca.pem")), "nothing written for a refused command");
  }
}
