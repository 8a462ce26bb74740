package io.frsm.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.frsm.client.transport.ClientOperation;
import io.frsm.client.transport.KeyBytes;
import io.frsm.client.transport.tls.Role;
import org.junit.jupiter.api.Test;

/** The role each operation of the client protocol needs (moved here with the rule itself). */
class OperationAuthorizerTest {
  @Test
  void roles_areRequiredPerOperation() {
    KeyBytes k = KeyBytes.of(new byte[] {1});
    assertEquals(Role.READ, OperationAuthorizer.requiredRole(new ClientOperation.Get(k)));
    assertEquals(Role.WRITE, OperationAuthorizer.requiredRole(new ClientOperation.Fence(k)));
    assertEquals(
        Role.WRITE,
        OperationAuthorizer.requiredRole(new ClientOperation.Create(k, new byte[] {2})));
  }
}
