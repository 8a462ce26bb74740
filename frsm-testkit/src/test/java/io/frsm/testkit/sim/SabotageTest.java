package io.frsm.testkit.sim;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.consensus.core.Sabotage;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The checkers have teeth: with a deliberate protocol bug switched on, the simulator fails within
 * the CI seed budget, and says which seed replays it.
 */
class SabotageTest {

  @ParameterizedTest
  @EnumSource(
      value = Sabotage.class,
      names = {
        "ACCEPT_WITHOUT_PROMISE_CHECK",
        "ACK_BEFORE_PERSIST",
        "SKIP_QUENCH",
        "DELETE_COMMIT_AS_HINT"
      })
  void brokenProtocol_isCaughtWithinTheCiBudget(Sabotage sabotage) {
    for (long seed = 1; seed <= SimulationSeedsTest.CI_SEEDS; seed++) {
      try {
        CounterWorkload.run(seed, FaultMix.forSeed(seed), Set.of(sabotage));
      } catch (AssertionError caught) {
        System.out.println(sabotage + " caught: " + caught.getMessage());
        assertTrue(caught.getMessage().contains("seed " + seed), "names its seed");
        return;
      }
    }
    throw new AssertionError(
        sabotage + " not caught in " + SimulationSeedsTest.CI_SEEDS + " seeds");
  }
}
