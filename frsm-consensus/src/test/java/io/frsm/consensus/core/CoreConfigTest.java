package io.frsm.consensus.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** {@link CoreConfig}'s builder: defaults, derivation, range checks, and the core's clock units. */
class CoreConfigTest {
  private static final Placement THREE = Placement.single(List.of(0, 1, 2));

  @Test
  void builder_withNothingSet_holdsTheDocumentedDefaults() {
    CoreConfig config = CoreConfig.builder(THREE).build();
    assertEquals(Duration.ofSeconds(5), config.boundedDelay());
    assertEquals(Duration.ofMillis(20), config.hedgeDelay());
    assertEquals(Duration.ofMillis(200), config.roundTimeout());
    assertEquals(Duration.ofMillis(50), config.backoffMax());
    assertEquals(1 << 20, config.warmKeysMax());
    assertEquals(Set.of(), config.sabotage());
    assertEquals(LeaseConfig.disabled(), config.leases());
    assertEquals(CoreConfig.Modes.DEFAULT, config.modes());
    assertEquals(config, CoreConfig.defaults(List.of(0, 1, 2)));
  }

  @Test
  void toBuilder_changesOnlyWhatIsSet() {
    CoreConfig base =
        CoreConfig.builder(THREE)
            .hedgeDelay(Duration.ofMillis(8))
            .leases(LeaseConfig.defaults())
            .sabotage(Set.of(Sabotage.SKIP_QUENCH))
            .build();
    CoreConfig derived = base.toBuilder().roundTimeout(Duration.ofMillis(40)).build();
    assertEquals(base.toBuilder().build(), base);
    assertEquals(Duration.ofMillis(40), derived.roundTimeout());
    assertEquals(base, derived.toBuilder().roundTimeout(CoreConfig.DEFAULT_ROUND_TIMEOUT).build());
  }

  @Test
  void build_withASettingOutOfRange_namesIt() {
    assertRejected(
        "roundTimeout",
        CoreConfig.builder(THREE)
            .hedgeDelay(Duration.ofMillis(50))
            .roundTimeout(Duration.ofMillis(40)));
    assertRejected("boundedDelay", CoreConfig.builder(THREE).boundedDelay(Duration.ofNanos(999)));
    assertRejected("hedgeDelay", CoreConfig.builder(THREE).hedgeDelay(Duration.ZERO));
    assertRejected("backoffMax", CoreConfig.builder(THREE).backoffMax(Duration.ofMillis(-1)));
    assertRejected("warmKeysMax", CoreConfig.builder(THREE).warmKeysMax(0));
    assertRejected(
        "boundedDelay", CoreConfig.builder(THREE).boundedDelay(Duration.ofDays(365L * 300)));
  }

  @Test
  void timings_areTheDurationsInClockUnits_boundedDelayInWholeMicroseconds() {
    CoreTimings timings =
        CoreTimings.of(
            CoreConfig.builder(THREE)
                .boundedDelay(Duration.ofNanos(200_000_999))
                .hedgeDelay(Duration.ofMillis(8))
                .roundTimeout(Duration.ofMillis(40))
                .backoffMax(Duration.ofMillis(20))
                .build());
    assertEquals(new CoreTimings(200_000, 8_000_000, 40_000_000, 20_000_000), timings);
  }

  @Test
  void leaseConfig_derivesItsWaitsFromTheLeaseLength() {
    LeaseConfig leases = new LeaseConfig(true, Duration.ofSeconds(2), 1_000);
    assertEquals(1_998_000_000L, leases.leaseAfterRenewalNanos());
    assertEquals(2_002_000_000L, leases.successorWaitNanos());
    assertThrows(IllegalArgumentException.class, () -> new LeaseConfig(true, Duration.ZERO, 1_000));
  }

  private static void assertRejected(String setting, CoreConfig.Builder builder) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, builder::build);
    assertTrue(e.getMessage().startsWith(setting + " "), e.getMessage());
  }
}
