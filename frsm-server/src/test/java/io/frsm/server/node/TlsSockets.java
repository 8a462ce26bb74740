package io.frsm.server.node;

import io.frsm.client.transport.tls.TlsFiles;
import io.frsm.transport.BadFrames.BadFrame;
import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;

/**
 * Raw TLS sockets to a node's ports, presenting a chosen certificate: what a program on the network
 * holding that certificate (or none) can send, byte for byte, without the transport's checks.
 */
final class TlsSockets {
  private TlsSockets() {}

  /**
   * A client-side TLS 1.3 context presenting {@code presented} (null: no certificate) and trusting
   * {@code trusted}'s CA bundle.
   */
  static SSLContext context(TlsFiles presented, TlsFiles trusted) throws IOException {
    SslContextBuilder b =
        SslContextBuilder.forClient()
            .sslProvider(SslProvider.JDK)
            .protocols("TLSv1.3")
            .endpointIdentificationAlgorithm(null)
            .trustManager(trusted.caBundle().toFile());
    if (presented != null) {
      b.keyManager(presented.certificateChain().toFile(), presented.privateKey().toFile());
    }
    return ((JdkSslContext) b.build()).context();
  }

  /** A connected socket whose handshake completed (from the client's side). */
  static SSLSocket open(SSLContext context, InetSocketAddress target, Duration deadline)
      throws IOException {
    SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket();
    socket.connect(target, (int) deadline.toMillis());
    socket.setSoTimeout((int) deadline.toMillis());
    socket.startHandshake();
    return socket;
  }

  /** Writes {@code bytes} over a fresh connection and closes it; returns its local port. */
  static int send(SSLContext context, InetSocketAddress target, byte[] bytes, Duration deadline)
      throws IOException {
    try (SSLSocket socket = open(context, target, deadline)) {
      socket.getOutputStream().write(bytes);
      socket.getOutputStream().flush();
      return socket.getLocalPort();
    }
  }

  /**
   * Sends {@code bad} over TLS and waits until the node closes the connection (or resets it), as
   * {@link io.frsm.transport.BadFrames#sendExpectingClose} does in plaintext; returns the local
   * port the node logs.
   */
  static int sendExpectingClose(
      SSLContext context, InetSocketAddress target, BadFrame bad, Duration deadline)
      throws IOException {
    try (SSLSocket socket = open(context, target, deadline)) {
      int localPort = socket.getLocalPort();
      OutputStream out = socket.getOutputStream();
      out.write(bad.bytes());
      out.flush();
      if (bad.halfClose()) {
        socket.shutdownOutput();
      }
      InputStream in = socket.getInputStream();
      int read;
      try {
        read = in.read();
      } catch (SocketTimeoutException e) {
        throw new AssertionError(bad + ": " + target + " kept the connection open", e);
      } catch (IOException reset) {
        return localPort; // a reset is a close too
      }
      if (read != -1) {
        throw new AssertionError(bad + ": " + target + " answered instead of closing");
      }
      return localPort;
    }
  }
}
