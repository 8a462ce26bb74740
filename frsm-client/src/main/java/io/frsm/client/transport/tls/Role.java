package io.frsm.client.transport.tls;

import java.util.Locale;

/**
 * What a client certificate allows on the client port (docs/OPERATIONS.md "Security"). A role is
 * granted by the certificate authority when it signs the certificate: the roles are part of the
 * certificate's identity URI ({@link CertificateIdentity}), so no node-side table can drift from
 * what was issued. Which operation needs which role is the node's rule (frsm-transport's
 * OperationAuthorizer); a topology watch needs {@link #READ}.
 */
public enum Role {
  /** Gets. */
  READ,
  /**
   * Create, CAS, delete and fence: everything that may change a key. A fence counts as a write: it
   * bumps the key's version (docs/DESIGN.md "Operations").
   */
  WRITE,
  /**
   * Administration. No operation of the client protocol needs it today; it is issued and parsed so
   * that administrative commands added to the protocol can require it without re-issuing
   * certificates.
   */
  ADMIN;

  /** The name in an identity URI: lower case. */
  public String uriName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The role named {@code name} in an identity URI, or null. */
  static Role fromUriName(String name) {
    for (Role r : values()) {
      if (r.uriName().equals(name)) {
        return r;
      }
    }
    return null;
  }
}
