package io.frsm.server.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
}
