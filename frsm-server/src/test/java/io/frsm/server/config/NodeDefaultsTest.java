package io.frsm.server.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.consensus.core.ShardRouting;
import org.junit.jupiter.api.Test;

class NodeDefaultsTest {
  @Test
  void automaticCoreThreads_areAQuarterOfTheCpus_atLeastOne_atMostTheShardLimit() {
    assertEquals(1, NodeDefaults.coreThreads(1));
    assertEquals(1, NodeDefaults.coreThreads(2));
    assertEquals(1, NodeDefaults.coreThreads(7));
    assertEquals(2, NodeDefaults.coreThreads(8));
    assertEquals(4, NodeDefaults.coreThreads(16));
    assertEquals(ShardRouting.MAX_SHARDS, NodeDefaults.coreThreads(1024));
  }

  @Test
  void automaticTransportThreads_areOneUpToTwoCpus_thenTwo() {
    assertEquals(1, NodeDefaults.transportThreads(1));
    assertEquals(1, NodeDefaults.transportThreads(2));
    assertEquals(2, NodeDefaults.transportThreads(3));
    assertEquals(2, NodeDefaults.transportThreads(64));
  }

  @Test
  void autoPlacement_putsTheCoreOnTheLoop_exactlyWithOneLoopAndOneShard() {
    assertTrue(CorePlacement.AUTO.onTransportLoops(1, 1));
    assertFalse(CorePlacement.AUTO.onTransportLoops(2, 1), "channels on another loop hand off");
    assertFalse(CorePlacement.AUTO.onTransportLoops(1, 2), "a second shard shares the one loop");
    assertFalse(CorePlacement.AUTO.onTransportLoops(4, 4));
    assertTrue(CorePlacement.TRANSPORT_LOOPS.onTransportLoops(4, 4), "as configured");
    assertFalse(CorePlacement.OWN_THREADS.onTransportLoops(1, 1), "as configured");
    // The machines the defaults give: the loop on a 2-CPU node only.
    for (int cpus : new int[] {1, 2, 4, 8, 16}) {
      assertEquals(
          cpus <= 2,
          CorePlacement.AUTO.onTransportLoops(
              NodeDefaults.transportThreads(cpus), NodeDefaults.coreThreads(cpus)),
          cpus + " CPUs");
    }
  }
}
