package io.frsm.client.transport.tls;

import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a {@link CertificateIdentity} from a certificate's URI subject alternative name, by the
 * exact grammar its class comment gives. Everything read here came from a peer: every failure is an
 * {@link IllegalArgumentException} saying what is wrong, never anything else.
 */
public final class IdentityUri {
  private IdentityUri() {}

  /** The URI subject alternative name type (RFC 5280 GeneralName uniformResourceIdentifier). */
  private static final int URI_NAME_TYPE = 6;

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]{1,64}");
  private static final Pattern NODE_URI =
      Pattern.compile("frsm://node/(0|[1-9][0-9]{0,9})\\?cluster=([A-Za-z0-9_.-]{1,64})");
  private static final Pattern CLIENT_URI =
      Pattern.compile(
          "frsm://client/([A-Za-z0-9_.-]{1,64})\\?cluster=([A-Za-z0-9_.-]{1,64})"
              + "&roles=([a-z]{1,8}(?:,[a-z]{1,8}){0,2})");

  static void requireName(String value, String what) {
    Objects.requireNonNull(value, what);
    if (!NAME.matcher(value).matches()) {
      throw new IllegalArgumentException(
          what + " must be 1-64 characters of [A-Za-z0-9_.-], was '" + value + "'");
    }
  }

  /**
   * The identity a URI names.
   *
   * @throws IllegalArgumentException saying what is wrong with it
   */
  public static CertificateIdentity parse(String uri) {
    Matcher node = NODE_URI.matcher(uri);
    if (node.matches()) {
      long id = Long.parseLong(node.group(1));
      if (id > Integer.MAX_VALUE) {
        throw new IllegalArgumentException("node id " + id + " is above 2^31-1 in " + uri);
      }
      return new CertificateIdentity.Node(node.group(2), (int) id);
    }
    Matcher client = CLIENT_URI.matcher(uri);
    if (client.matches()) {
      Set<Role> roles = EnumSet.noneOf(Role.class);
      for (String name : client.group(3).split(",")) {
        Role role = Role.fromUriName(name);
        if (role == null) {
          throw new IllegalArgumentException("unknown role '" + name + "' in " + uri);
        }
        if (!roles.add(role)) {
          throw new IllegalArgumentException("role '" + name + "' twice in " + uri);
        }
      }
      return new CertificateIdentity.Client(client.group(2), client.group(1), roles);
    }
    throw new IllegalArgumentException(
        "'"
            + uri
            + "' is neither frsm://node/<id>?cluster=<cluster> nor"
            + " frsm://client/<name>?cluster=<cluster>&roles=<roles>");
  }

  /**
   * The identity {@code certificate} carries: its one URI subject alternative name that starts with
   * {@code frsm:}.
   *
   * @throws IllegalArgumentException if it has none, several, or one that does not parse
   */
  public static CertificateIdentity of(X509Certificate certificate) {
    Collection<List<?>> names;
    try {
      names = certificate.getSubjectAlternativeNames();
    } catch (CertificateParsingException e) {
      throw new IllegalArgumentException("unreadable subject alternative names: " + e, e);
    }
    List<String> frsm = new ArrayList<>();
    if (names != null) {
      for (List<?> name : names) {
        if (name.size() >= 2
            && name.get(0) instanceof Integer type
            && type == URI_NAME_TYPE
            && name.get(1) instanceof String uri
            && uri.startsWith("frsm:")) {
          frsm.add(uri);
        }
      }
    }
    if (frsm.size() != 1) {
      throw new IllegalArgumentException(
          "certificate of "
              + certificate.getSubjectX500Principal().getName()
              + " carries "
              + frsm.size()
              + " frsm identity URIs (subject alternative names), needs exactly one");
    }
    return parse(frsm.get(0));
  }
}
