package io.frsm.client.transport.tls;

import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import javax.net.ssl.SSLException;

/**
 * The TLS contexts of one side (a node, or a client), built from its {@link TlsFiles} and built
 * again when they change: every new connection asks for the current context, and at most once per
 * check interval that asks the file system whether any of the three files changed (size or
 * modification time). Connections open already keep the context they started with.
 *
 * <p>TLS 1.3 only, mutual: the server side requires a client certificate; both sides verify the
 * other's chain against the CA bundle. Host names are not verified: who a peer is comes from its
 * certificate's identity URI ({@link CertificateIdentity}), checked by {@link IdentityGate}.
 *
 * <p>A reload that fails (a file half-written, a key that does not match, a certificate that names
 * another identity than the one this side started with) keeps the previous contexts, is counted and
 * logged once per change of the files; the next change is tried again. Thread-safe: any event loop
 * may ask; one of them rebuilds while the others keep using the contexts they have.
 */
public final class TlsContexts {
  private static final System.Logger LOG = System.getLogger(TlsContexts.class.getName());
  private static final String TLS_1_3 = "TLSv1.3";

  private final TlsFiles files;
  private final SslProvider provider;
  private final long checkIntervalNanos;
  private final AtomicBoolean checking = new AtomicBoolean();
  private final LongAdder reloads = new LongAdder();
  private final LongAdder reloadFailures = new LongAdder();
  private volatile Loaded loaded;
  private volatile long nextCheckNanos;

  /** One generation of the files: contexts, the identity they present, and what the files were. */
  private record Loaded(
      SslContext server, SslContext client, CertificateIdentity self, List<Object> stamps) {}

  private TlsContexts(TlsFiles files, SslProvider provider, Duration checkInterval) {
    this.files = files;
    this.provider = provider;
    this.checkIntervalNanos = checkInterval.toNanos();
  }

  /**
   * Reads {@code files} now.
   *
   * @param provider the TLS implementation: {@link SslProvider#JDK}, or {@link SslProvider#OPENSSL}
   *     when netty-tcnative is on the class path
   * @param checkInterval how often a new connection may look for changed files
   * @throws IllegalArgumentException naming the file that cannot be read or used
   */
  public static TlsContexts load(TlsFiles files, SslProvider provider, Duration checkInterval) {
    Objects.requireNonNull(files, "files");
    Objects.requireNonNull(provider, "provider");
    if (checkInterval.isNegative()) {
      throw new IllegalArgumentException("checkInterval must not be negative: " + checkInterval);
    }
    TlsContexts contexts = new TlsContexts(files, provider, checkInterval);
    contexts.loaded = contexts.build(null);
    contexts.nextCheckNanos = System.nanoTime() + contexts.checkIntervalNanos;
    return contexts;
  }

  /** The identity this side's certificate carries (fixed: a reload may not change it). */
  public CertificateIdentity self() {
    return loaded.self();
  }

  /** The context for accepted connections, reloaded first if the files changed. */
  public SslContext server() {
    return current().server();
  }

  /** The context for dialed connections, reloaded first if the files changed. */
  public SslContext client() {
    return current().client();
  }

  /** Successful reloads since start. */
  public long reloads() {
    return reloads.sum();
  }

  /** Changes of the files that could not be used (the previous contexts stayed). */
  public long reloadFailures() {
    return reloadFailures.sum();
  }

  private Loaded current() {
    long now = System.nanoTime();
    if (now - nextCheckNanos >= 0 && checking.compareAndSet(false, true)) {
      try {
        nextCheckNanos = now + checkIntervalNanos;
        reloadIfChanged();
      } finally {
        checking.set(false);
      }
    }
    return loaded;
  }

  private void reloadIfChanged() {
    Loaded previous = loaded;
    List<Object> stamps;
    try {
      stamps = stamps();
    } catch (IOException e) {
      return; // a file is being replaced (rename in progress): look again next time
    }
    if (stamps.equals(previous.stamps())) {
      return;
    }
    try {
      loaded = build(previous.self());
      reloads.increment();
      LOG.log(Level.INFO, "TLS files changed: new connections use them ({0})", files);
    } catch (IllegalArgumentException e) {
      // Remember the failed files' stamps so the failure is logged once per change.
      loaded = new Loaded(previous.server(), previous.client(), previous.self(), stamps);
      reloadFailures.increment();
      LOG.log(
          Level.WARNING,
          "TLS files changed but cannot be used; keeping the previous ones: {0}",
          e.getMessage());
    }
  }

  private List<Object> stamps() throws IOException {
    return List.of(
        stamp(files.caBundle()), stamp(files.certificateChain()), stamp(files.privateKey()));
  }

  private static List<Object> stamp(Path file) throws IOException {
    BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
    return List.of(a.size(), a.lastModifiedTime());
  }

  /**
   * Builds contexts from the files as they are now. {@code expectedSelf}: the identity the first
   * generation had, which a later one must keep (null for the first).
   */
  private Loaded build(CertificateIdentity expectedSelf) {
    List<Object> stamps;
    try {
      stamps = stamps(); // before reading: a change while reading is seen next time
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read TLS files " + files + ": " + e, e);
    }
    CertificateIdentity self = identityOf(files.certificateChain());
    if (expectedSelf != null && !expectedSelf.equals(self)) {
      throw new IllegalArgumentException(
          files.certificateChain()
              + " now names "
              + self
              + ", not "
              + expectedSelf
              + ": an identity changes only with a restart");
    }
    try {
      SslContext server =
          SslContextBuilder.forServer(
                  files.certificateChain().toFile(), files.privateKey().toFile())
              .trustManager(files.caBundle().toFile())
              .clientAuth(ClientAuth.REQUIRE)
              .protocols(TLS_1_3)
              .sslProvider(provider)
              .build();
      SslContext client =
          SslContextBuilder.forClient()
              .keyManager(files.certificateChain().toFile(), files.privateKey().toFile())
              .trustManager(files.caBundle().toFile())
              .endpointIdentificationAlgorithm(null) // identity URIs instead: IdentityGate
              .protocols(TLS_1_3)
              .sslProvider(provider)
              .build();
      return new Loaded(server, client, self, stamps);
    } catch (SSLException | IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "cannot use TLS files " + files + ": " + rootMessage(e), e);
    }
  }

  /** The identity URI of the first certificate of a PEM chain. */
  static CertificateIdentity identityOf(Path chain) {
    X509Certificate first;
    try (InputStream in = Files.newInputStream(chain)) {
      first = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    } catch (IOException | UncheckedIOException | CertificateException | ClassCastException e) {
      throw new IllegalArgumentException(
          "cannot read a certificate from " + chain + ": " + rootMessage(e), e);
    }
    try {
      return IdentityUri.of(first);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(chain + ": " + e.getMessage(), e);
    }
  }

  private static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t == e ? String.valueOf(e.getMessage()) : e.getMessage() + " (" + t + ")";
  }
}
