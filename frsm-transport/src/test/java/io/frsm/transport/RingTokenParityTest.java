package io.frsm.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.frsm.cell.Token;
import io.frsm.client.RingToken;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The client's copy of the token hash ({@link RingToken}, frsm-client) equals the nodes' ({@link
 * Token}, frsm-cell) for every key length across the 16-byte block and tail boundaries and for
 * random keys: a client that hashed differently would send every key to the wrong range.
 */
class RingTokenParityTest {
  @Test
  void clientTokens_equalTheNodes() {
    SplittableRandom random = new SplittableRandom(25);
    for (int length = 0; length <= 80; length++) {
      for (int trial = 0; trial < 50; trial++) {
        byte[] key = new byte[length];
        for (int i = 0; i < length; i++) {
          key[i] = (byte) random.nextInt(256);
        }
        assertEquals(Token.of(key), RingToken.of(key), "key of " + length + " bytes");
      }
    }
    byte[] big = new byte[4096];
    for (int i = 0; i < big.length; i++) {
      big[i] = (byte) random.nextInt(256);
    }
    assertEquals(Token.of(big, 7, 3000), RingToken.of(big, 7, 3000), "an offset slice");
  }
}
