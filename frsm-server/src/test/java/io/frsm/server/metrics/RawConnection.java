package io.frsm.server.metrics;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Test helper: a plain TCP connection to an endpoint on loopback, to send exactly the bytes a
 * minimal or hostile client sends (one byte and silence, an oversized head, a half-close) and read
 * what the server answers until it closes the connection.
 */
final class RawConnection implements AutoCloseable {
  private final Socket socket;

  private RawConnection(Socket socket) {
    this.socket = socket;
  }

  static RawConnection open(InetSocketAddress endpoint) throws IOException {
    return new RawConnection(new Socket(InetAddress.getLoopbackAddress(), endpoint.getPort()));
  }

  RawConnection send(String ascii) throws IOException {
    socket.getOutputStream().write(ascii.getBytes(StandardCharsets.ISO_8859_1));
    socket.getOutputStream().flush();
    return this;
  }

  /** Tells the server this client sends nothing more (TCP half-close). */
  RawConnection shutdownOutput() throws IOException {
    socket.shutdownOutput();
    return this;
  }

  /**
   * Everything the server sends until it closes the connection (an end of stream, or a reset after
   * the bytes read so far).
   *
   * @throws SocketTimeoutException if the connection is still open after {@code within}
   */
  String readUntilClosed(Duration within) throws IOException {
    long deadline = System.nanoTime() + within.toNanos();
    ByteArrayOutputStream received = new ByteArrayOutputStream();
    InputStream in = socket.getInputStream();
    byte[] buffer = new byte[8192];
    while (true) {
      long leftMillis = Math.max(1, (deadline - System.nanoTime()) / 1_000_000);
      socket.setSoTimeout((int) Math.min(Integer.MAX_VALUE, leftMillis));
      int n;
      try {
        n = in.read(buffer);
      } catch (SocketTimeoutException stillOpen) {
        throw new SocketTimeoutException(
            "still open after "
                + within
                + "; received: "
                + received.toString(StandardCharsets.UTF_8));
      } catch (SocketException reset) {
        return received.toString(StandardCharsets.UTF_8);
      }
      if (n < 0) {
        return received.toString(StandardCharsets.UTF_8);
      }
      received.write(buffer, 0, n);
    }
  }

  /** Whether the server keeps the connection open, sending nothing, for {@code period}. */
  boolean staysOpenFor(Duration period) throws IOException {
    socket.setSoTimeout((int) Math.max(1, period.toMillis()));
    try {
      socket.getInputStream().read(); // a byte, or the end of the stream: not silent and open
      return false;
    } catch (SocketTimeoutException stillOpen) {
      return true;
    } catch (SocketException reset) {
      return false;
    }
  }

  /** The status code of a raw response's status line ({@code HTTP/1.1 200 OK}); -1 if none. */
  static int status(String response) {
    if (!response.startsWith("HTTP/1.")) {
      return -1;
    }
    int space = response.indexOf(' ');
    return Integer.parseInt(response.substring(space + 1, space + 4));
  }

  /** The body of a raw response: what follows the blank line after the headers. */
  static String body(String response) {
    int end = response.indexOf("\r\n\r\n");
    return end < 0 ? "" : response.substring(end + 4);
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
