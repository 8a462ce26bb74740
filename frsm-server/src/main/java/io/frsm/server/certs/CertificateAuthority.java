package io.frsm.server.certs;

import io.frsm.client.transport.tls.CertificateIdentity;
import io.frsm.client.transport.tls.TlsFiles;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Objects;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A certificate authority for one cluster, for {@code frsm certs}, {@code frsm local} and tests: an
 * EC P-256 key and a self-signed CA certificate, which signs node and client certificates that
 * carry their identity as a URI subject alternative name ({@link CertificateIdentity}). Keys and
 * signatures come from the JDK's providers; BouncyCastle only assembles the certificates (the JDK
 * has no public X.509 builder).
 *
 * <p>On disk ({@link #FILE_CA}, {@link #FILE_CA_KEY}; docs/OPERATIONS.md "Security"): the CA key
 * signs anything the nodes will trust, so keep it off the nodes. Not thread-safe.
 */
public final class CertificateAuthority {
  public static final String FILE_CA = "ca.pem";
  public static final String FILE_CA_KEY = "ca-key.pem";

  /** Certificates start this long before they are made, so a peer's clock may lag a little. */
  private static final Duration BACKDATE = Duration.ofHours(1);

  private static final SecureRandom RANDOM = new SecureRandom();

  private final X509Certificate certificate;
  private final PrivateKey key;

  private CertificateAuthority(X509Certificate certificate, PrivateKey key) {
    this.certificate = certificate;
    this.key = key;
  }

  /** A new CA whose certificate is valid for {@code validity} from now. */
  public static CertificateAuthority create(String clusterId, Duration validity) {
    KeyPair keys = newKeyPair();
    X500Name name =
        new X500NameBuilder(BCStyle.INSTANCE)
            .addRDN(BCStyle.O, "frsm cluster " + clusterId)
            .addRDN(BCStyle.CN, "frsm CA " + clusterId + " " + Instant.now())
            .build();
    try {
      JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
      X509v3CertificateBuilder b =
          builder(name, name, keys, validity)
              .addExtension(Extension.basicConstraints, true, new BasicConstraints(0))
              .addExtension(
                  Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign))
              .addExtension(
                  Extension.subjectKeyIdentifier,
                  false,
                  ext.createSubjectKeyIdentifier(keys.getPublic()));
      return new CertificateAuthority(sign(b, keys.getPrivate()), keys.getPrivate());
    } catch (CertIOException | GeneralSecurityException e) {
      throw new IllegalStateException("cannot make a CA certificate: " + e, e);
    }
  }

  /** The CA stored in {@code dir} ({@link #FILE_CA}, {@link #FILE_CA_KEY}). */
  public static CertificateAuthority load(Path dir) throws IOException {
    return new CertificateAuthority(
        Pem.readCertificate(dir.resolve(FILE_CA)), Pem.readEcPrivateKey(dir.resolve(FILE_CA_KEY)));
  }

  /** The CA in {@code dir} if there is one, else a new one written there. */
  public static CertificateAuthority loadOrCreate(Path dir, String clusterId, Duration validity)
      throws IOException {
    if (Files.exists(dir.resolve(FILE_CA)) || Files.exists(dir.resolve(FILE_CA_KEY))) {
      return load(dir);
    }
    CertificateAuthority ca = create(clusterId, validity);
    ca.writeTo(dir);
    return ca;
  }

  public X509Certificate certificate() {
    return certificate;
  }

  /** Writes the CA's certificate and (owner-only) key into {@code dir}, creating it. */
  public void writeTo(Path dir) throws IOException {
    Files.createDirectories(dir);
    Pem.writeCertificates(dir.resolve(FILE_CA), List.of(certificate));
    Pem.writePrivateKey(dir.resolve(FILE_CA_KEY), key);
  }

  /**
   * Issues a certificate for {@code identity}, writes it as {@code <name>.pem} and its key as
   * {@code <name>-key.pem} in {@code dir}, and returns the three files its holder configures (the
   * CA bundle being this CA's {@link #FILE_CA} in {@code dir}, written if missing).
   */
  public TlsFiles issue(Path dir, String name, CertificateIdentity identity, Duration validity)
      throws IOException {
    Files.createDirectories(dir);
    Path ca = dir.resolve(FILE_CA);
    if (!Files.exists(ca)) {
      Pem.writeCertificates(ca, List.of(certificate));
    }
    KeyPair keys = newKeyPair();
    X509Certificate issued = sign(identity, keys, validity);
    Path chain = dir.resolve(name + ".pem");
    Path keyFile = dir.resolve(name + "-key.pem");
    Pem.writeCertificates(chain, List.of(issued));
    Pem.writePrivateKey(keyFile, keys.getPrivate());
    return new TlsFiles(ca, chain, keyFile);
  }

  /** Node {@code nodeId}'s files in {@code dir}: {@code node-<id>.pem} and its key. */
  public TlsFiles issueNode(Path dir, String clusterId, int nodeId, Duration validity)
      throws IOException {
    return issue(dir, "node-" + nodeId, new CertificateIdentity.Node(clusterId, nodeId), validity);
  }

  private X509Certificate sign(CertificateIdentity identity, KeyPair keys, Duration validity) {
    X500Name subject =
        new X500NameBuilder(BCStyle.INSTANCE)
            .addRDN(BCStyle.O, "frsm cluster " + identity.clusterId())
            .addRDN(BCStyle.CN, identity.toString())
            .build();
    X500Name issuer = X500Name.getInstance(certificate.getSubjectX500Principal().getEncoded());
    try {
      JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
      X509v3CertificateBuilder b =
          builder(issuer, subject, keys, validity)
              .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
              .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature))
              // Every holder is both: a node accepts peers and dials them; a client dials.
              .addExtension(
                  Extension.extendedKeyUsage,
                  false,
                  new ExtendedKeyUsage(
                      new KeyPurposeId[] {
                        KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth
                      }))
              .addExtension(
                  Extension.subjectAlternativeName,
                  false,
                  new GeneralNames(
                      new GeneralName(GeneralName.uniformResourceIdentifier, identity.uri())))
              .addExtension(
                  Extension.subjectKeyIdentifier,
                  false,
                  ext.createSubjectKeyIdentifier(keys.getPublic()))
              .addExtension(
                  Extension.authorityKeyIdentifier,
                  false,
                  ext.createAuthorityKeyIdentifier(certificate));
      return sign(b, key);
    } catch (CertIOException | GeneralSecurityException e) {
      throw new IllegalStateException("cannot issue a certificate for " + identity + ": " + e, e);
    }
  }

  private static X509v3CertificateBuilder builder(
      X500Name issuer, X500Name subject, KeyPair keys, Duration validity) {
    Objects.requireNonNull(validity, "validity");
    if (validity.isNegative() || validity.isZero()) {
      throw new IllegalArgumentException("validity must be positive, was " + validity);
    }
    Instant now = Instant.now();
    return new JcaX509v3CertificateBuilder(
        issuer,
        new BigInteger(127, RANDOM)
            .add(BigInteger.ONE), // positive, unpredictable (RFC 5280 4.1.2.2)
        Date.from(now.minus(BACKDATE)),
        Date.from(now.plus(validity)),
        subject,
        keys.getPublic());
  }

  private static X509Certificate sign(X509v3CertificateBuilder b, PrivateKey signer) {
    try {
      return new JcaX509CertificateConverter()
          .getCertificate(b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(signer)));
    } catch (OperatorCreationException | GeneralSecurityException e) {
      throw new IllegalStateException("cannot sign a certificate: " + e, e);
    }
  }

  private static KeyPair newKeyPair() {
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
      g.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
      return g.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("no EC P-256 key generator in this JDK: " + e, e);
    }
  }
}
