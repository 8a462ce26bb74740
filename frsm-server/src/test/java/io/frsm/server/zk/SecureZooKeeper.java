package io.frsm.server.zk;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.zookeeper.server.embedded.ExitHandler;
import org.apache.zookeeper.server.embedded.ZooKeeperServerEmbedded;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A ZooKeeper server in this JVM whose client port is secure only to the test: a TLS port ({@link
 * #secureConnectString()}) that requires a client certificate of {@code clientCa}, beside the
 * plaintext port ZooKeeper's embedded start probes. Its own certificate is self-signed, names
 * 127.0.0.1 and localhost (so clients verify the host name), and is in {@link #serverCa()}: a CA
 * other than the clients', so a client that took the server's stores from the JVM's system
 * properties instead of its own configuration fails both ways.
 *
 * <p>ZooKeeper's server reads its TLS settings only from {@code zookeeper.*} system properties
 * (what its config file's unknown keys become); they are restored when this closes.
 */
public final class SecureZooKeeper implements AutoCloseable {
  private final ZooKeeperServerEmbedded server;
  private final int securePort;
  private final Path serverCa;
  private final Map<String, String> propertiesBefore;

  private SecureZooKeeper(
      ZooKeeperServerEmbedded server,
      int securePort,
      Path serverCa,
      Map<String, String> propertiesBefore) {
    this.server = server;
    this.securePort = securePort;
    this.serverCa = serverCa;
    this.propertiesBefore = propertiesBefore;
  }

  /** Starts one with its data and key material under {@code dir}, trusting {@code clientCa}. */
  public static SecureZooKeeper start(Path dir, Path clientCa) throws Exception {
    Files.createDirectories(dir);
    Path serverStore = dir.resolve("zookeeper-server.pem");
    Path serverCa = dir.resolve("zookeeper-server-ca.pem");
    selfSigned(serverStore, serverCa);
    int plainPort = EmbeddedZooKeeper.freeLoopbackPort();
    int securePort = EmbeddedZooKeeper.freeLoopbackPort();
    Properties p = new Properties();
    p.setProperty("clientPort", Integer.toString(plainPort));
    p.setProperty("clientPortAddress", "127.0.0.1");
    p.setProperty("secureClientPort", Integer.toString(securePort));
    p.setProperty("secureClientPortAddress", "127.0.0.1");
    p.setProperty("serverCnxnFactory", "org.apache.zookeeper.server.NettyServerCnxnFactory");
    p.setProperty("ssl.keyStore.location", serverStore.toString());
    p.setProperty("ssl.trustStore.location", clientCa.toString());
    // Client certificates name frsm identities (URIs), not the hosts they connect from.
    p.setProperty("ssl.clientHostnameVerification", "false");
    p.setProperty("dataDir", dir.resolve("data").toString());
    p.setProperty("tickTime", "500");
    p.setProperty("minSessionTimeout", "1000");
    p.setProperty("maxSessionTimeout", "60000");
    p.setProperty("admin.enableServer", "false");
    p.setProperty("maxClientCnxns", "0");
    p.setProperty("4lw.commands.whitelist", "srvr,ruok,stat");
    Map<String, String> before = zooKeeperProperties();
    ZooKeeperServerEmbedded server =
        ZooKeeperServerEmbedded.builder()
            .baseDir(dir)
            .configuration(p)
            .exitHandler(ExitHandler.LOG_ONLY)
            .build();
    try {
      server.start(30_000);
    } catch (Exception | Error e) {
      server.close();
      restore(before);
      throw e;
    }
    return new SecureZooKeeper(server, securePort, serverCa, before);
  }

  /** {@code 127.0.0.1:<secure port>}. */
  public String secureConnectString() {
    return "127.0.0.1:" + securePort;
  }

  /** The CA (the self-signed certificate) a client trusts this server by. */
  public Path serverCa() {
    return serverCa;
  }

  @Override
  public void close() {
    try {
      server.close();
    } finally {
      restore(propertiesBefore);
    }
  }

  private static Map<String, String> zooKeeperProperties() {
    Map<String, String> out = new HashMap<>();
    for (String name : System.getProperties().stringPropertyNames()) {
      if (name.startsWith("zookeeper.")) {
        out.put(name, System.getProperty(name));
      }
    }
    return out;
  }

  private static void restore(Map<String, String> before) {
    for (String name : zooKeeperProperties().keySet()) {
      if (!before.containsKey(name)) {
        System.clearProperty(name);
      }
    }
    before.forEach(System::setProperty);
  }

  /**
   * A key and self-signed certificate for 127.0.0.1 and localhost: key and cert to {@code store}.
   */
  private static void selfSigned(Path store, Path certificate) throws Exception {
    KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
    g.initialize(new ECGenParameterSpec("secp256r1"));
    KeyPair keys = g.generateKeyPair();
    X500Name name = new X500Name("CN=frsm test zookeeper");
    Instant now = Instant.now();
    JcaX509v3CertificateBuilder b =
        new JcaX509v3CertificateBuilder(
            name,
            BigInteger.valueOf(now.toEpochMilli()),
            Date.from(now.minus(Duration.ofHours(1))),
            Date.from(now.plus(Duration.ofDays(1))),
            name,
            keys.getPublic());
    b.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
    b.addExtension(
        Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth));
    b.addExtension(
        Extension.subjectAlternativeName,
        false,
        new GeneralNames(
            new GeneralName[] {
              new GeneralName(GeneralName.iPAddress, "127.0.0.1"),
              new GeneralName(GeneralName.dNSName, "localhost")
            }));
    X509Certificate cert =
        new JcaX509CertificateConverter()
            .getCertificate(
                b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(keys.getPrivate())));
    String certPem = pem("CERTIFICATE", cert.getEncoded());
    Files.writeString(certificate, certPem, StandardCharsets.US_ASCII);
    Files.writeString(
        store,
        pem("PRIVATE KEY", keys.getPrivate().getEncoded()) + certPem,
        StandardCharsets.US_ASCII);
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN "
        + type
        + "-----\n"
        + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
        + "\n-----END "
        + type
        + "-----\n";
  }
}
