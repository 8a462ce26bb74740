package io.frsm.server.certs;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.CertificateEncodingException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.List;

/**
 * PEM as the transport reads it (RFC 7468): certificates as {@code CERTIFICATE} blocks, private
 * keys as unencrypted PKCS#8 {@code PRIVATE KEY} blocks. Key files are written readable by their
 * owner only where the file system has POSIX permissions.
 */
final class Pem {
  private static final Base64.Encoder BASE64 =
      Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII));

  private Pem() {}

  static String block(String type, byte[] der) {
    return "-----BEGIN "
        + type
        + "-----\n"
        + BASE64.encodeToString(der)
        + "\n-----END "
        + type
        + "-----\n";
  }

  static void writeCertificates(Path file, List<X509Certificate> chain) throws IOException {
    StringBuilder pem = new StringBuilder();
    try {
      for (X509Certificate c : chain) {
        pem.append(block("CERTIFICATE", c.getEncoded()));
      }
    } catch (CertificateEncodingException e) {
      throw new IOException("cannot encode a certificate for " + file, e);
    }
    Files.writeString(file, pem, StandardCharsets.US_ASCII);
  }

  /** Writes the key with owner-only permissions from the start (never briefly world-readable). */
  static void writePrivateKey(Path file, PrivateKey key) throws IOException {
    Files.deleteIfExists(file);
    try {
      Files.createFile(
          file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    } catch (UnsupportedOperationException e) {
      Files.createFile(file); // no POSIX permissions here (Windows): the directory's ACL applies
    }
    Files.writeString(
        file,
        block("PRIVATE KEY", key.getEncoded()),
        StandardCharsets.US_ASCII,
        StandardOpenOption.TRUNCATE_EXISTING);
  }

  static X509Certificate readCertificate(Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    } catch (CertificateException | ClassCastException e) {
      throw new IOException("no X.509 certificate in " + file + ": " + e.getMessage(), e);
    }
  }

  static PrivateKey readEcPrivateKey(Path file) throws IOException {
    String text = Files.readString(file, StandardCharsets.US_ASCII);
    int begin = text.indexOf("-----BEGIN PRIVATE KEY-----");
    int end = text.indexOf("-----END PRIVATE KEY-----");
    if (begin < 0 || end < begin) {
      throw new IOException(file + " holds no PKCS#8 PRIVATE KEY block");
    }
    String base64 = text.substring(begin + "-----BEGIN PRIVATE KEY-----".length(), end);
    try {
      byte[] der = Base64.getMimeDecoder().decode(base64);
      return KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(der));
    } catch (IllegalArgumentException | GeneralSecurityException e) {
      throw new IOException("cannot read the EC private key in " + file + ": " + e, e);
    }
  }
}
