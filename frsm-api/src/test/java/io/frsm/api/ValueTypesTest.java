package io.frsm.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class ValueTypesTest {

  @Test
  void versions_orderByEpochThenTimestamp() {
    assertTrue(new Version(1, 9).compareTo(new Version(2, 0)) < 0);
    assertTrue(new Version(2, 1).compareTo(new Version(2, 0)) > 0);
    assertEquals(new Version(2, 1), new Version(2, 0).next());
    assertThrows(ArithmeticException.class, () -> new Version(1, Long.MAX_VALUE).next());
    assertThrows(IllegalArgumentException.class, () -> new Version(-1, 0));
  }

  @Test
  void versioned_neverSharesItsBytes() {
    byte[] value = {1, 2, 3};
    Versioned v = new Versioned(value, new Version(1, 0));
    value[0] = 9;
    assertArrayEquals(new byte[] {1, 2, 3}, v.value());
    v.value()[1] = 9;
    assertArrayEquals(new byte[] {1, 2, 3}, v.value());
    assertEquals(v, new Versioned(new byte[] {1, 2, 3}, new Version(1, 0)));
    assertNotEquals(v, new Versioned(new byte[] {1, 2, 3}, new Version(1, 1)));
  }

  @Test
  void versioned_copyOfABuffer_sharesNothingWritable() {
    ByteBuffer source = ByteBuffer.wrap(new byte[] {0, 1, 2, 3, 0});
    source.position(1).limit(4);
    Versioned v = Versioned.copyOf(source, new Version(1, 0));
    assertEquals(1, source.position(), "the source's position is not moved");
    source.put(1, (byte) 9);
    assertArrayEquals(new byte[] {1, 2, 3}, v.value());
    assertEquals(v, new Versioned(new byte[] {1, 2, 3}, new Version(1, 0)));
    v.value()[0] = 9;
    assertArrayEquals(new byte[] {1, 2, 3}, v.value());
    // The constructor still copies a caller's array after a copyOf on the same thread.
    byte[] mine = {4, 5};
    Versioned w = new Versioned(mine, new Version(1, 0));
    mine[0] = 9;
    assertArrayEquals(new byte[] {4, 5}, w.value());
  }

  @Test
  void exceptions_sayWhatHappenedAndWhatToDo() {
    CasMismatchException m = new CasMismatchException(new Version(1, 1), Optional.empty());
    assertTrue(m.getMessage().contains("absent"), m.getMessage());
    assertTrue(m.current().isEmpty());
    OutcomeUnknownException u = new OutcomeUnknownException("cas on key k timed out");
    assertTrue(u.getMessage().contains("fence"), u.getMessage());
    assertTrue(new NotExecutedException("queued past T").getMessage().contains("safe to retry"));
  }

  @Test
  void syncCalls_rethrowFrsmExceptionsUnwrapped() {
    KeyExistsException exists =
        new KeyExistsException(new Versioned(new byte[0], new Version(3, 0)));
    FrsmException thrown =
        assertThrows(
            FrsmException.class, () -> Futures.join(CompletableFuture.failedFuture(exists)));
    assertSame(exists, thrown);
    FrsmException wrapped =
        assertThrows(
            FrsmException.class,
            () -> Futures.join(CompletableFuture.failedFuture(new IllegalStateException("x"))));
    assertTrue(wrapped.getCause() instanceof IllegalStateException);
  }
}
