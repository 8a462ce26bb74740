package io.frsm.transport;

import static io.frsm.transport.WireTesting.frame;

import io.frsm.client.proto.ClientEnvelope;
import io.frsm.client.transport.ClientCodec;
import io.frsm.client.transport.OperationRequest;
import io.frsm.client.transport.WireFormat;
import io.frsm.consensus.core.Message;
import io.frsm.transport.proto.PeerEnvelope;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * Bad input for a node's peer and client ports, sent from a raw socket: malformed, truncated and
 * oversized frames, a wrong cluster id and a wrong protocol version (docs/formats/wire.md "Header
 * rules"). Each case carries a fragment of the warning the receiver logs for it. Shared by the
 * per-port tests here ({@link PeerBadInputTest}, {@link ClientBadInputTest}) and, through the test
 * jar, the node-level test in frsm-server.
 */
public final class BadFrames {
  /** The cluster id of the wrong-cluster cases; it appears in the receiver's warning. */
  public static final String FOREIGN_CLUSTER = "another-cluster";

  private BadFrames() {}

  /**
   * One kind of bad input.
   *
   * @param kind names the case in assertion messages
   * @param bytes what the raw socket writes
   * @param halfClose whether the socket then shuts its output (a truncated frame needs the end of
   *     the stream to be noticed)
   * @param logged a fragment of the receiver's warning for this case
   */
  public record BadFrame(String kind, byte[] bytes, boolean halfClose, String logged) {
    @Override
    public String toString() {
      return kind;
    }
  }

  /** A length prefix of 2³¹−1: above any {@code maxFrameBytes}, refused before any body. */
  public static BadFrame oversizedLengthPrefix() {
    return new BadFrame(
        "oversized length prefix",
        new byte[] {0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff},
        false,
        "exceeds");
  }

  // ---- peer port

  /** Four bytes that are no protobuf message (a field tag of all ones). */
  public static BadFrame peerMalformed() {
    return new BadFrame("malformed peer envelope", garbage(), false, "unparsable peer envelope");
  }

  /** A sound frame of {@code message} cut 5 bytes short, then the end of the stream. */
  public static BadFrame peerTruncated(String clusterId, int senderNodeId, Message message) {
    byte[] good = frame(peer(clusterId, senderNodeId, message));
    return new BadFrame(
        "truncated peer frame",
        Arrays.copyOf(good, good.length - 5),
        true,
        "in the middle of a frame");
  }

  public static BadFrame peerWrongCluster(int senderNodeId, Message message) {
    return new BadFrame(
        "peer frame of another cluster",
        frame(peer(FOREIGN_CLUSTER, senderNodeId, message)),
        false,
        FOREIGN_CLUSTER);
  }

  public static BadFrame peerWrongProtocolVersion(
      String clusterId, int senderNodeId, Message message) {
    PeerEnvelope future =
        peer(clusterId, senderNodeId, message).toBuilder()
            .setProtocolVersion(WireFormat.PROTOCOL_VERSION + 1)
            .build();
    return new BadFrame("peer frame of a newer protocol", frame(future), false, "protocol version");
  }

  /** Every peer case, those with a body carrying {@code message} from {@code senderNodeId}. */
  public static List<BadFrame> allPeer(String clusterId, int senderNodeId, Message message) {
    return List.of(
        peerMalformed(),
        peerTruncated(clusterId, senderNodeId, message),
        oversizedLengthPrefix(),
        peerWrongCluster(senderNodeId, message),
        peerWrongProtocolVersion(clusterId, senderNodeId, message));
  }

  /** A sound peer frame: {@code message} from {@code senderNodeId} in {@code clusterId}. */
  public static byte[] peerFrame(String clusterId, int senderNodeId, Message message) {
    return frame(peer(clusterId, senderNodeId, message));
  }

  private static PeerEnvelope peer(String clusterId, int senderNodeId, Message message) {
    return new PeerCodec(clusterId).encode(senderNodeId, message);
  }

  // ---- client port

  public static BadFrame clientMalformed() {
    return new BadFrame(
        "malformed client envelope", garbage(), false, "unparsable client envelope");
  }

  /** A sound request frame cut 3 bytes short, then the end of the stream. */
  public static BadFrame clientTruncated(String clusterId, OperationRequest request) {
    byte[] good = frame(client(clusterId, request));
    return new BadFrame(
        "truncated client frame",
        Arrays.copyOf(good, good.length - 3),
        true,
        "in the middle of a frame");
  }

  public static BadFrame clientWrongCluster(OperationRequest request) {
    return new BadFrame(
        "client frame of another cluster",
        frame(client(FOREIGN_CLUSTER, request)),
        false,
        FOREIGN_CLUSTER);
  }

  public static BadFrame clientWrongProtocolVersion(String clusterId, OperationRequest request) {
    ClientEnvelope future =
        client(clusterId, request).toBuilder()
            .setProtocolVersion(WireFormat.PROTOCOL_VERSION + 1)
            .build();
    return new BadFrame(
        "client frame of a newer protocol", frame(future), false, "protocol version");
  }

  /** Every client case, those with a body carrying {@code request}. */
  public static List<BadFrame> allClient(String clusterId, OperationRequest request) {
    return List.of(
        clientMalformed(),
        clientTruncated(clusterId, request),
        oversizedLengthPrefix(),
        clientWrongCluster(request),
        clientWrongProtocolVersion(clusterId, request));
  }

  private static ClientEnvelope client(String clusterId, OperationRequest request) {
    return new ClientCodec(clusterId, ClientCodec.Side.CLIENT).encodeRequest(1, request);
  }

  private static byte[] garbage() {
    return new byte[] {0, 0, 0, 4, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff};
  }

  // ---- sending

  /**
   * Connects to {@code target}, writes the case's bytes (half-closing if it says so) and waits
   * until the receiver closes the connection; fails if it is still open after {@code deadline} or
   * if the receiver answered anything. Returns the socket's local port, which the receiver's
   * warning names.
   */
  public static int sendExpectingClose(InetSocketAddress target, BadFrame bad, Duration deadline)
      throws IOException {
    try (Socket socket = new Socket()) {
      socket.connect(target, (int) deadline.toMillis());
      socket.setSoTimeout((int) deadline.toMillis());
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
