package io.frsm.client.transport.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The identity URI grammar of docs/formats/wire.md "TLS and certificate identity", exactly. */
class IdentityUriTest {

  @Test
  void nodeAndClientUris_roundTrip() {
    CertificateIdentity node = new CertificateIdentity.Node("prod", 3);
    assertEquals("frsm://node/3?cluster=prod", node.uri());
    assertEquals(node, IdentityUri.parse(node.uri()));
    CertificateIdentity client =
        new CertificateIdentity.Client("prod", "orders", EnumSet.of(Role.WRITE, Role.READ));
    assertEquals("frsm://client/orders?cluster=prod&roles=read,write", client.uri());
    assertEquals(client, IdentityUri.parse(client.uri()));
    assertEquals(client, IdentityUri.parse("frsm://client/orders?cluster=prod&roles=write,read"));
    assertEquals(
        new CertificateIdentity.Node("a_b.c-9", Integer.MAX_VALUE),
        IdentityUri.parse("frsm://node/2147483647?cluster=a_b.c-9"));
  }

  @Test
  void nodesHoldReadAndWrite_clientsWhatTheyWereGranted() {
    assertEquals(EnumSet.of(Role.READ, Role.WRITE), new CertificateIdentity.Node("c", 1).roles());
    assertEquals(
        EnumSet.of(Role.ADMIN),
        IdentityUri.parse("frsm://client/ops?cluster=c&roles=admin").roles());
  }

  @Test
  void anythingElse_isRefused_sayingWhy() {
    List<String> bad =
        List.of(
            "",
            "frsm://node/3",
            "frsm://node/03?cluster=prod",
            "frsm://node/-1?cluster=prod",
            "frsm://node/+3?cluster=prod",
            "frsm://node/2147483648?cluster=prod",
            "frsm://node/99999999999?cluster=prod",
            "frsm://node/3?cluster=prod&x=1",
            "frsm://node/3?cluster=",
            "frsm://node/3?cluster=pr%20od",
            "frsm://node/3?cluster=" + "c".repeat(65),
            "FRSM://node/3?cluster=prod",
            "frsm://Node/3?cluster=prod",
            "frsm://client/app?cluster=prod",
            "frsm://client/app?cluster=prod&roles=",
            "frsm://client/app?cluster=prod&roles=root",
            "frsm://client/app?cluster=prod&roles=read,read",
            "frsm://client/app?roles=read&cluster=prod",
            "frsm://client/a/b?cluster=prod&roles=read",
            "frsm://client/app?cluster=prod&roles=read,write,admin,read",
            "frsm://node/3?cluster=prod\n");
    for (String uri : bad) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> IdentityUri.parse(uri), uri);
      assertTrue(e.getMessage() != null && !e.getMessage().isEmpty(), uri);
    }
  }
}
