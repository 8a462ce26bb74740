package io.frsm.server.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.client.proto.AdminRequest;
import io.frsm.client.proto.AdminRequest.ChangeMembership;
import io.frsm.client.proto.AdminResponse;
import io.frsm.lsm.QuarantinedInterval;
import io.frsm.lsm.ScrubStatus;
import io.frsm.server.membership.MembershipOrchestrator;
import io.frsm.server.ring.NodeInfo;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The node's admin handler without a cluster: a node that does not serve yet reports itself and
 * refuses changes; compactions run on the admin thread; more commands than it queues are refused as
 * busy, and it serves again once the thread is free.
 */
class NodeAdminTest {
  private static final AdminRequest STATUS =
      AdminRequest.newBuilder().setStatus(AdminRequest.Status.getDefaultInstance()).build();
  private static final AdminRequest COMPACT =
      AdminRequest.newBuilder().setCompact(AdminRequest.Compact.getDefaultInstance()).build();

  /** A node that does not serve: no orchestrator. */
  private static final class IdleSite implements AdminSite {
    final AtomicInteger compactions = new AtomicInteger();
    volatile CompletableFuture<Void> compaction = CompletableFuture.completedFuture(null);

    @Override
    public int nodeId() {
      return 7;
    }

    @Override
    public InetSocketAddress clientAddress() {
      return new InetSocketAddress(InetAddress.getLoopbackAddress(), 7500);
    }

    @Override
    public long installedRingVersion() {
      return -1;
    }

    @Override
    public boolean leadsRange(int range) {
      return false;
    }

    @Override
    public List<QuarantinedInterval> needsRepair() {
      return List.of();
    }

    @Override
    public ScrubStatus scrub() {
      return new ScrubStatus(true, 2, 5, 3, 100, 4, 0);
    }

    @Override
    public CompletableFuture<Void> compact() {
      compactions.incrementAndGet();
      return compaction;
    }

    final AtomicInteger repairs = new AtomicInteger();

    @Override
    public io.frsm.server.membership.MembershipChange requestRepair() {
      repairs.incrementAndGet();
      return new io.frsm.server.membership.MembershipChange(
          io.frsm.server.membership.MembershipChange.Kind.REPAIR, 7, -1, 3, List.of(2, 5));
    }

    @Override
    public Map<Integer, NodeInfo> registered() {
      return Map.of();
    }

    @Override
    public MembershipOrchestrator orchestrator() {
      return null;
    }
  }

  private static AdminResponse answer(NodeAdmin admin, AdminRequest r) throws Exception {
    return admin.handle(r).get(30, TimeUnit.SECONDS);
  }

  @Test
  void aNodeThatDoesNotServe_reportsItself_andRefusesChanges() throws Exception {
    NodeAdmin admin = new NodeAdmin(new IdleSite());
    AdminResponse status = answer(admin, STATUS);
    assertEquals(7, status.getStatus().getSelf().getNodeId());
    assertEquals(StatusReport.NOT_SERVING, status.getStatus().getSelf().getState());
    assertEquals(-1, status.getStatus().getSelf().getInstalledRingVersion());
    assertEquals(
        "2 passes, at table 5 block 3, 0 corrupt blocks", status.getStatus().getSelf().getScrub());
    assertEquals(0, status.getStatus().getRangesCount());
    AdminResponse add =
        answer(
            admin,
            AdminRequest.newBuilder()
                .setChangeMembership(
                    ChangeMembership.newBuilder().setKind(ChangeMembership.Kind.ADD).setNodeId(4))
                .build());
    assertTrue(add.getRefused().contains("does not serve yet"), add.toString());
  }

  @Test
  void moreCommandsThanQueued_areRefusedBusy_untilTheThreadIsFree() throws Exception {
    IdleSite site = new IdleSite();
    site.compaction = new CompletableFuture<>();
    NodeAdmin admin = new NodeAdmin(site);
    List<CompletableFuture<AdminResponse>> accepted = new ArrayList<>();
    // One runs (and waits for the compaction), QUEUED wait behind it.
    for (int i = 0; i <= NodeAdmin.QUEUED; i++) {
      accepted.add(admin.handle(COMPACT));
    }
    AdminResponse busy = admin.handle(STATUS).get(30, TimeUnit.SECONDS);
    assertTrue(busy.getRefused().contains("busy"), busy.toString());
    site.compaction.complete(null);
    for (CompletableFuture<AdminResponse> f : accepted) {
      assertEquals(7, f.get(30, TimeUnit.SECONDS).getCompacted().getNodeId());
    }
    assertEquals(NodeAdmin.QUEUED + 1, site.compactions.get());
    assertEquals(7, answer(admin, STATUS).getStatus().getSelf().getNodeId());
  }

  @Test
  void aFailedCompaction_isRefusedWithItsCause() throws Exception {
    IdleSite site = new IdleSite();
    site.compaction = CompletableFuture.failedFuture(new java.io.IOException("disk gone"));
    AdminResponse failed = answer(new NodeAdmin(site), COMPACT);
    assertTrue(failed.getRefused().contains("disk gone"), failed.toString());
  }

  private static AdminRequest repair(int node, int replacement) {
    return AdminRequest.newBuilder()
        .setChangeMembership(
            ChangeMembership.newBuilder()
                .setKind(ChangeMembership.Kind.REPAIR)
                .setNodeId(node)
                .setReplacementId(replacement))
        .build();
  }

  @Test
  void aRepair_isAskedOfTheDamagedNodeItself_andStoredByIt() throws Exception {
    IdleSite site = new IdleSite();
    NodeAdmin admin = new NodeAdmin(site);
    AdminResponse elsewhere = answer(admin, repair(4, 0));
    assertTrue(elsewhere.getRefused().contains("damaged node itself"), elsewhere.toString());
    AdminResponse stray = answer(admin, repair(7, 3));
    assertTrue(stray.getRefused().contains("replace only"), stray.toString());
    assertEquals(0, site.repairs.get(), "nothing requested for a refused command");
    AdminResponse accepted = answer(admin, repair(7, 0));
    assertTrue(accepted.getAccepted().contains("repair"), accepted.toString());
    assertEquals(1, site.repairs.get());
  }
}
