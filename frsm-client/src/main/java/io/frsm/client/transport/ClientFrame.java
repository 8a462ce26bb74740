package io.frsm.client.transport;

import java.util.Objects;

/** One decoded client-protocol frame. Holds no buffer. */
public sealed interface ClientFrame {
  long requestId();

  /** A well-formed request (server side). */
  public record Request(long requestId, OperationRequest request) implements ClientFrame {
    public Request {
      Objects.requireNonNull(request, "request");
    }
  }

  /**
   * A request whose envelope was valid but whose operation was not (an empty key, a missing
   * version): answered with {@link OperationResponse.Invalid} without reaching the node.
   */
  public record BadRequest(long requestId, String reason) implements ClientFrame {}

  /** A response (client side). */
  public record Response(long requestId, OperationResponse response) implements ClientFrame {
    public Response {
      Objects.requireNonNull(response, "response");
    }
  }

  /** A client asks for the cluster's topology now and after every change (server side). */
  public record WatchTopology(long requestId) implements ClientFrame {}

  /** A node's view of the cluster, answering the watch {@code requestId} (client side). */
  public record TopologyUpdate(long requestId, TopologySnapshot topology) implements ClientFrame {
    public TopologyUpdate {
      Objects.requireNonNull(topology, "topology");
    }
  }

  /**
   * An operator's admin command (server side), checked by the node's admin handler, never by the
   * codec: a malformed command is answered {@code refused}, not dropped.
   */
  public record AdminCall(long requestId, io.frsm.client.proto.AdminRequest request)
      implements ClientFrame {
    public AdminCall {
      Objects.requireNonNull(request, "request");
    }
  }

  /** A node's answer to an admin command (client side). */
  public record AdminAnswer(long requestId, io.frsm.client.proto.AdminResponse response)
      implements ClientFrame {
    public AdminAnswer {
      Objects.requireNonNull(response, "response");
    }
  }

  /** A client's keep-alive (server side): answered with a {@link Pong}, nothing else. */
  public record Ping(long requestId) implements ClientFrame {}

  /** A node's answer to a keep-alive (client side). */
  public record Pong(long requestId) implements ClientFrame {}
}
