package io.frsm.server.node;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import io.frsm.api.FrsmClient;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The numbered keys a benchmark IT loads into a cluster before it measures, and reads back after:
 * key {@code i} is {@code prefix} followed by {@code i}, its value {@code valueBytes} bytes that
 * start with {@code i}, so a value read back names the key it belongs to.
 */
record BenchKeys(String prefix, int valueBytes) {
  /** Creates in flight at a time while loading: enough to keep three loopback nodes busy. */
  private static final int WINDOW = 64;

  byte[] key(int i) {
    return (prefix + i).getBytes(StandardCharsets.UTF_8);
  }

  byte[] value(int i) {
    byte[] v = new byte[valueBytes];
    byte[] tag = Integer.toString(i).getBytes(StandardCharsets.UTF_8);
    System.arraycopy(tag, 0, v, 0, tag.length);
    return v;
  }

  /**
   * Creates keys {@code 0..count-1} through {@code client}, {@value #WINDOW} at a time; each create
   * that failed (unknown or not executed on a loaded machine) is resolved with a fence and created
   * again if absent, so every key exists afterwards.
   *
   * @return how many creates were resolved so
   */
  int load(FrsmClient client, int count) throws Exception {
    Semaphore window = new Semaphore(WINDOW);
    List<CompletableFuture<?>> writes = new ArrayList<>();
    List<Integer> unsure = Collections.synchronizedList(new ArrayList<>());
    for (int i = 0; i < count; i++) {
      window.acquire();
      int k = i;
      writes.add(
          client
              .createAsync(key(i), value(i))
              .whenComplete(
                  (v, e) -> {
                    if (e != null) {
                      unsure.add(k);
                    }
                    window.release();
                  }));
    }
    CompletableFuture.allOf(
            writes.stream().map(w -> w.handle((v, e) -> v)).toArray(CompletableFuture[]::new))
        .get(30, TimeUnit.MINUTES);
    for (int k : unsure) {
      if (client.fence(key(k)).isEmpty()) {
        client.create(key(k), value(k));
      }
    }
    return unsure.size();
  }

  /**
   * Reads every key {@code 0..count-1}, {@value #WINDOW} at a time, and checks each value; a get
   * that failed (a timeout on a loaded machine) is read again once, one at a time.
   */
  void assertAllReadBack(FrsmClient client, int count) throws Exception {
    Semaphore window = new Semaphore(WINDOW);
    List<Integer> wrong = Collections.synchronizedList(new ArrayList<>());
    List<Integer> failed = Collections.synchronizedList(new ArrayList<>());
    for (int i = 0; i < count; i++) {
      window.acquire();
      int k = i;
      client
          .getAsync(key(i))
          .whenComplete(
              (v, e) -> {
                if (e != null) {
                  failed.add(k);
                } else if (v.isEmpty() || !java.util.Arrays.equals(value(k), v.get().value())) {
                  wrong.add(k);
                }
                window.release();
              });
    }
    if (!window.tryAcquire(WINDOW, 30, TimeUnit.MINUTES)) {
      throw new AssertionError("reads did not end within 30 minutes");
    }
    for (int k : List.copyOf(failed)) {
      assertArrayEquals(value(k), client.get(key(k)).orElseThrow().value(), "key " + k);
    }
    if (!wrong.isEmpty()) {
      throw new AssertionError(
          wrong.size() + " keys missing or wrong, first " + wrong.subList(0, 1) + " of " + count);
    }
  }

  /** Reads {@code samples} of keys {@code 0..count-1} (the same ones every run) and checks each. */
  void assertSamplesReadBack(FrsmClient client, int count, int samples) {
    Random random = new Random(1);
    for (int n = 0; n < samples; n++) {
      int i = random.nextInt(count);
      assertArrayEquals(value(i), client.get(key(i)).orElseThrow().value(), "key " + i);
    }
  }
}
