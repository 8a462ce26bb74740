package io.frsm.bench.crsm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.Version;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class KvStateMachineTest {
  private static final byte[] KEY = "k".getBytes(StandardCharsets.US_ASCII);
  private final KvStateMachine kv = new KvStateMachine();

  private static byte[] v(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  @Test
  void create_thenCasFromTheReturnedVersion_advancesTheTimestamp() {
    Version created = ((Result.Written) kv.execute(4, new Command.Create(KEY, v("a")))).version();
    assertEquals(new Version(5, 0), created);
    Result r = kv.execute(5, new Command.Cas(KEY, created, v("b")));
    assertEquals(new Result.Written(created.next()), r);
    Result.Value read = kv.read(KEY);
    assertArrayEquals(v("b"), read.value().orElseThrow().value());
    assertEquals(created.next(), read.value().orElseThrow().version());
  }

  @Test
  void casFromAStaleVersion_mismatchesAndCarriesTheCurrentValue() {
    Version created = ((Result.Written) kv.execute(0, new Command.Create(KEY, v("a")))).version();
    kv.execute(1, new Command.Cas(KEY, created, v("b")));
    Result.Mismatch m =
        assertInstanceOf(
            Result.Mismatch.class, kv.execute(2, new Command.Cas(KEY, created, v("c"))));
    assertEquals(created.next(), m.current().orElseThrow().version());
    assertArrayEquals(v("b"), m.current().orElseThrow().value());
  }

  @Test
  void createOnALiveKey_reportsTheExistingValue() {
    kv.execute(0, new Command.Create(KEY, v("a")));
    Result.Exists e =
        assertInstanceOf(Result.Exists.class, kv.execute(1, new Command.Create(KEY, v("b"))));
    assertArrayEquals(v("a"), e.current().value());
  }

  @Test
  void deleteThenCreate_startsAHigherEpoch_evenInTheSameSlot() {
    Version created = ((Result.Written) kv.execute(3, new Command.Create(KEY, v("a")))).version();
    assertEquals(new Result.Deleted(), kv.execute(3, new Command.Delete(KEY, created)));
    assertTrue(kv.read(KEY).value().isEmpty());
    Version again = ((Result.Written) kv.execute(3, new Command.Create(KEY, v("b")))).version();
    assertTrue(again.epoch() > created.epoch(), again + " after " + created);
    assertEquals(0, again.timestamp());
  }

  @Test
  void casOnADeletedKey_mismatchesAsAbsent() {
    Version created = ((Result.Written) kv.execute(0, new Command.Create(KEY, v("a")))).version();
    kv.execute(1, new Command.Delete(KEY, created));
    Result.Mismatch m =
        assertInstanceOf(
            Result.Mismatch.class, kv.execute(2, new Command.Cas(KEY, created.next(), v("b"))));
    assertTrue(m.current().isEmpty());
  }

  @Test
  void fence_bumpsTheVersionSoOlderCasesFail() {
    Version created = ((Result.Written) kv.execute(0, new Command.Create(KEY, v("a")))).version();
    Result.Value fenced = (Result.Value) kv.execute(1, new Command.Fence(KEY));
    assertEquals(created.next(), fenced.value().orElseThrow().version());
    assertArrayEquals(v("a"), fenced.value().orElseThrow().value());
    assertInstanceOf(Result.Mismatch.class, kv.execute(2, new Command.Cas(KEY, created, v("b"))));
  }

  @Test
  void fenceOnAnAbsentKey_answersAbsentAndLaterCreatesGetAHigherEpoch() {
    Result.Value fenced = (Result.Value) kv.execute(7, new Command.Fence(KEY));
    assertTrue(fenced.value().isEmpty());
    Version created = ((Result.Written) kv.execute(7, new Command.Create(KEY, v("a")))).version();
    assertEquals(new Version(9, 0), created);
  }
}
