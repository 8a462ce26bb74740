package io.frsm.consensus.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The hand-off inputs at the edges (docs/PROTOCOL.md "Hand-off instead of a scan"): what a node
 * does with a shipment it must not trust, and that nothing happens with the mode off. The hand-off
 * itself is exercised end to end in the simulator (HandOffScenarioTest, HandOffSimulationTest).
 */
class HandOffInputsTest {
  private static final Key K = Key.of("k".getBytes(StandardCharsets.US_ASCII));
  private static final Now NOW = new Now(1_000_000, 0);
  private static final AcceptedValue CHOSEN =
      AcceptedValue.live(1, 1, new Ballot(1, 0, 0), new byte[] {1}, true);

  private final Map<Key, Cell> durable = new HashMap<>();

  private NodeCore core(boolean handOff) {
    CoreConfig config =
        CoreConfig.builder(Placement.single(List.of(0, 1, 2)))
            .leases(LeaseConfig.defaults())
            .modes(CoreConfig.Modes.DEFAULT.withHandOff(handOff))
            .build();
    return new NodeCore(0, 1, config, durable::get, bound -> 0);
  }

  private static HandOffShipment shipment(int range, long term) {
    return new HandOffShipment(range, term, List.of(new HandOffShipment.Entry(K, CHOSEN)));
  }

  @Test
  void aShipmentOfARangeOutsideThePlacement_isRefusedAsInput() {
    NodeCore node = core(true);
    assertThrows(
        RefusedInputException.class,
        () -> node.step(NOW, new Input.ImportShipment(shipment(1, 2))));
    assertThrows(RefusedInputException.class, () -> node.step(NOW, new Input.HandOff(3, 1)));
  }

  @Test
  void aShipmentWithANumberOutOfBounds_isRefusedAsInput() {
    AcceptedValue huge =
        AcceptedValue.live(
            1, InputBounds.MAX_NUMBER + 1, new Ballot(1, 0, 0), new byte[] {1}, true);
    HandOffShipment s = new HandOffShipment(0, 2, List.of(new HandOffShipment.Entry(K, huge)));
    NodeCore node = core(true);
    assertThrows(RefusedInputException.class, () -> node.step(NOW, new Input.ImportShipment(s)));
  }

  @Test
  void aRestoredBase_letsTheNextShipmentIn_andTheNextGrantDropsItsRecord() {
    NodeCore node = core(true);
    long ring = Placement.single(List.of(0, 1, 2)).ringVersion();
    assertEquals(List.of(), node.step(NOW, new Input.RestoreBase(0, 1, ring)));
    assertEquals(1, node.handOffBasesRestored());
    List<Effect> granted = node.step(NOW, new Input.TermGranted(0, 3, true));
    assertEquals(new Effect.BaseDropped(0), granted.get(0), "before the term's persist");
    node.step(NOW, new Input.ImportShipment(shipment(0, 2)));
    assertEquals(0, node.handOffsRefused(), "the in-memory base stays for the import");
    assertTrue(
        node.step(NOW, new Input.TermGranted(0, 5, true)).stream()
            .noneMatch(e -> e instanceof Effect.BaseDropped),
        "dropped once");
  }

  @Test
  void aRestoredBase_ofAnotherRingVersion_orAfterAGrant_isDropped_notTaken() {
    NodeCore node = core(true);
    long ring = Placement.single(List.of(0, 1, 2)).ringVersion();
    assertEquals(
        List.of(new Effect.BaseDropped(0)), node.step(NOW, new Input.RestoreBase(0, 1, ring + 1)));
    node.step(NOW, new Input.TermGranted(0, 3, true));
    assertEquals(
        List.of(new Effect.BaseDropped(0)), node.step(NOW, new Input.RestoreBase(0, 2, ring)));
    assertEquals(0, node.handOffBasesRestored());
    node.step(NOW, new Input.ImportShipment(shipment(0, 2)));
    assertEquals(1, node.handOffsRefused(), "no base: the shipment is refused");
  }

  /**
   * An entry base of {@code t} (docs/PROTOCOL.md "A killed holder: covering its term", step 4)
   * takes only a shipment of {@code t + 1} that covers {@code t}: one covering nothing, or of
   * another term, is refused.
   */
  @Test
  void anEntryBase_takesOnlyAShipmentOfTheNextTermThatCoversItsTerm() {
    NodeCore node = core(true);
    long ring = Placement.single(List.of(0, 1, 2)).ringVersion();
    assertEquals(List.of(), node.step(NOW, new Input.RestoreBase(0, 3, ring, true)));
    assertEquals(1, node.handOffBasesRestored());
    node.step(NOW, new Input.ImportShipment(shipment(0, 4)));
    assertEquals(1, node.handOffsRefused(), "a shipment covering nothing");
    node.step(NOW, new Input.ImportShipment(shipment(0, 5).covering(4)));
    assertEquals(2, node.handOffsRefused(), "a shipment of another term");
    List<Effect> taken = node.step(NOW, new Input.ImportShipment(shipment(0, 4).covering(3)));
    assertEquals(2, node.handOffsRefused(), "the covering shipment of the next term is taken");
    assertTrue(
        taken.stream().anyMatch(e -> e instanceof Effect.Persist), "its value merged: " + taken);
  }

  /** The same as a graceful base: any shipment of the next term (its own shipment covered it). */
  @Test
  void aGracefulBase_takesAShipmentOfTheNextTerm_coveringOrNot() {
    NodeCore node = core(true);
    long ring = Placement.single(List.of(0, 1, 2)).ringVersion();
    node.step(NOW, new Input.RestoreBase(0, 3, ring, false));
    node.step(NOW, new Input.ImportShipment(shipment(0, 4)));
    assertEquals(0, node.handOffsRefused());
  }

  /**
   * A ring change after the entry base — even one that leaves the range's replicas as they were, so
   * the base itself is kept — refuses the import on it: a settle may have re-committed values under
   * its own ballot, which no classification sees.
   */
  @Test
  void anEntryBase_afterARingChange_refusesEvenACoveringShipment() {
    NodeCore node = core(true);
    Placement placement = Placement.single(List.of(0, 1, 2));
    node.step(NOW, new Input.RestoreBase(0, 3, placement.ringVersion(), true));
    node.step(NOW, new Input.PlacementChanged(placement.atVersion(placement.ringVersion() + 1)));
    node.step(NOW, new Input.ImportShipment(shipment(0, 4).covering(3)));
    assertEquals(1, node.handOffsRefused());
  }

  @Test
  void aRestoredBase_ofARangeOutsideThePlacement_isRefusedAsInput_andWithTheModeOffIgnored() {
    assertThrows(
        RefusedInputException.class, () -> core(true).step(NOW, new Input.RestoreBase(1, 1, 0)));
    NodeCore off = core(false);
    long ring = Placement.single(List.of(0, 1, 2)).ringVersion();
    assertEquals(List.of(), off.step(NOW, new Input.RestoreBase(0, 1, ring)));
    assertEquals(0, off.handOffBasesRestored());
  }

  @Test
  void aShipmentWithoutABase_isRefused_andWritesNothing() {
    NodeCore node = core(true);
    List<Effect> out = node.step(NOW, new Input.ImportShipment(shipment(0, 2)));
    assertEquals(List.of(), out);
    assertEquals(1, node.handOffsRefused());
  }

  @Test
  void withTheModeOff_aHandOffDoesNothing_andAShipmentIsRefused() {
    NodeCore node = core(false);
    assertEquals(List.of(), node.step(NOW, new Input.HandOff(0, 1)));
    assertEquals(List.of(), node.step(NOW, new Input.ImportShipment(shipment(0, 2))));
    assertEquals(1, node.handOffsRefused());
    assertEquals(0, node.handOffsShipped());
  }

  @Test
  void aHandOffOfATermNotHeld_doesNothing() {
    NodeCore node = core(true);
    assertEquals(List.of(), node.step(NOW, new Input.HandOff(0, 1)));
    assertEquals(0, node.handOffsShipped());
  }

  @Test
  void aShippedValueIsChosenOrAbsent() {
    assertThrows(
        IllegalArgumentException.class,
        () -> new HandOffShipment.Entry(K, CHOSEN.withChosen(false)));
    assertTrue(new HandOffShipment.Entry(K, null).chosen() == null);
  }
}
