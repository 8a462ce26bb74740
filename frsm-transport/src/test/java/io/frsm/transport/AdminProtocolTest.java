package io.frsm.transport;

import static io.frsm.transport.WireTesting.CLUSTER;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnknownFieldSet;
import io.frsm.api.NotExecutedException;
import io.frsm.client.proto.AdminRequest;
import io.frsm.client.proto.AdminResponse;
import io.frsm.client.transport.ClientOutcome;
import io.frsm.client.transport.ClientProtocolClient;
import io.frsm.client.transport.OperationResponse;
import io.frsm.client.transport.TransportConfig;
import io.frsm.client.transport.TransportEventLoops;
import io.frsm.client.transport.tls.ChannelSecurity;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Admin messages on the client port (plaintext: no role is checked, as on an insecure cluster; the
 * admin role over TLS is AdminCommandIT's): they reach the admin handler and its answer comes back
 * under the request id; a server without a handler, a failing handler, an answer too large and a
 * request too large each end cleanly, and the server keeps serving.
 */
class AdminProtocolTest {
  private static final Duration DEADLINE = Duration.ofSeconds(30);
  private static final InetSocketAddress LOOPBACK =
      new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
  private static final AdminRequest STATUS =
      AdminRequest.newBuilder().setStatus(AdminRequest.Status.getDefaultInstance()).build();

  private final TransportConfig config =
      TransportConfig.builder(CLUSTER).maxFrameBytes(64 * 1024).build();
  private final TransportEventLoops loops = TransportEventLoops.create(1, false);
  private final List<AdminRequest> handled = new ArrayList<>();
  private final List<AutoCloseable> open = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
    loops.close();
  }

  private ClientProtocolServer server(ClientProtocolServer.AdminHandler admin) {
    ClientProtocolServer s =
        ClientProtocolServer.start(
            LOOPBACK,
            r ->
                CompletableFuture.completedFuture(
                    new OperationResponse.Completed(
                        new ClientOutcome.ReadResult(Optional.empty()))),
            admin,
            TopologyFeed.NONE,
            config,
            loops,
            ChannelSecurity.plaintext());
    open.add(s);
    return s;
  }

  private ClientProtocolClient client(ClientProtocolServer s, TransportConfig c) {
    ClientProtocolClient client = ClientProtocolClient.connect(s.localAddress(), c, loops);
    open.add(client);
    return client;
  }

  private static AdminResponse ask(ClientProtocolClient client, AdminRequest request)
      throws Exception {
    return client.admin(request, DEADLINE).get(DEADLINE.toSeconds() + 5, TimeUnit.SECONDS);
  }

  @Test
  void adminRequest_reachesTheHandler_andItsAnswerComesBack() throws Exception {
    ClientProtocolServer s =
        server(
            r -> {
              synchronized (handled) {
                handled.add(r);
              }
              return CompletableFuture.completedFuture(
                  AdminResponse.newBuilder().setAccepted("seen " + r.getCommandCase()).build());
            });
    ClientProtocolClient client = client(s, config);
    assertEquals("seen STATUS", ask(client, STATUS).getAccepted());
    synchronized (handled) {
      assertEquals(List.of(STATUS), handled);
    }
  }

  @Test
  void aServerWithoutAnAdminHandler_refusesAdminRequests() throws Exception {
    ClientProtocolServer s =
        ClientProtocolServer.start(
            LOOPBACK,
            r ->
                CompletableFuture.completedFuture(
                    new OperationResponse.Completed(
                        new ClientOutcome.ReadResult(Optional.empty()))),
            config,
            loops);
    open.add(s);
    AdminResponse answer = ask(client(s, config), STATUS);
    assertTrue(answer.getRefused().contains("answers no admin commands"), answer.toString());
  }

  @Test
  void aFailingHandler_isAnsweredRefused() throws Exception {
    ClientProtocolServer s =
        server(
            r -> {
              throw new IllegalStateException("boom");
            });
    ClientProtocolClient client = client(s, config);
    AdminResponse answer = ask(client, STATUS);
    assertTrue(answer.getRefused().startsWith("server error: "), answer.toString());
    assertTrue(answer.getRefused().contains("boom"), answer.toString());
    ClientProtocolServer later =
        server(r -> CompletableFuture.failedFuture(new IllegalStateException("late boom")));
    assertTrue(ask(client(later, config), STATUS).getRefused().contains("late boom"));
  }

  @Test
  void anAnswerTooLarge_isReplacedByARefusal() throws Exception {
    String huge = "x".repeat(100 * 1024);
    ClientProtocolServer s =
        server(
            r ->
                CompletableFuture.completedFuture(
                    AdminResponse.newBuilder().setAccepted(huge).build()));
    AdminResponse answer = ask(client(s, config), STATUS);
    assertTrue(answer.getRefused().contains("exceeds maxFrameBytes 65536"), answer.toString());
  }

  @Test
  void aRequestTooLarge_closesTheConnection_unhandled_andTheServerServesOn() throws Exception {
    ClientProtocolServer s =
        server(
            r -> {
              synchronized (handled) {
                handled.add(r);
              }
              return CompletableFuture.completedFuture(
                  AdminResponse.newBuilder().setAccepted("ok").build());
            });
    // A sender that allows itself larger frames than the server does.
    ClientProtocolClient big =
        client(s, TransportConfig.builder(CLUSTER).maxFrameBytes(1024 * 1024).build());
    AdminRequest oversized =
        STATUS.toBuilder()
            .setUnknownFields(
                UnknownFieldSet.newBuilder()
                    .addField(
                        99,
                        UnknownFieldSet.Field.newBuilder()
                            .addLengthDelimited(ByteString.copyFrom(new byte[200 * 1024]))
                            .build())
                    .build())
            .build();
    ExecutionException lost =
        assertThrows(
            ExecutionException.class,
            () -> big.admin(oversized, DEADLINE).get(DEADLINE.toSeconds() + 5, TimeUnit.SECONDS));
    assertInstanceOf(NotExecutedException.class, lost.getCause());
    synchronized (handled) {
      assertEquals(List.of(), handled, "nothing reached the handler");
    }
    assertEquals("ok", ask(client(s, config), STATUS).getAccepted());
  }
}
