package io.frsm.server.workload;

import io.frsm.api.CasMismatchException;
import io.frsm.api.FrsmClient;
import io.frsm.api.FrsmException;
import io.frsm.api.KeyExistsException;
import io.frsm.api.NotExecutedException;
import io.frsm.api.OutcomeUnknownException;
import io.frsm.api.Versioned;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The paper's Appendix C test, against a live cluster: clients CAS-increment a few counters while
 * nodes fail; an increment that ends with an unknown outcome is resolved by {@code fence} (its tag
 * is in the fenced value, or it never took effect). {@link #verify} then checks every counter
 * equals the increments that took effect: none lost, none applied twice.
 *
 * <p>Each client thread calls {@link #incrementOnce} in a loop; a client increments one counter at
 * a time (session order), which is what makes the per-client sequence tag decisive.
 */
public final class CounterCheck {
  static final long RESOLVE_DEADLINE_NANOS = 120_000_000_000L;

  private final FrsmClient client;
  private final List<byte[]> counters = new ArrayList<>();
  private final ConcurrentHashMap<Integer, AtomicLong> tookEffect = new ConcurrentHashMap<>();
  private final AtomicLong unknownResolved = new AtomicLong();
  private final AtomicLong notExecuted = new AtomicLong();

  public CounterCheck(FrsmClient client, int counterCount, String prefix) {
    this.client = client;
    for (int i = 0; i < counterCount; i++) {
      counters.add((prefix + "-counter-" + i).getBytes(StandardCharsets.US_ASCII));
    }
  }

  public int counterCount() {
    return counters.size();
  }

  /**
   * One increment of counter {@code index} by {@code clientId} with sequence {@code seq} (strictly
   * increasing per client). Returns true if it took effect, false if it definitely did not (lost a
   * race or was not executed); retries are the caller's choice.
   */
  public boolean incrementOnce(int index, int clientId, long seq) {
    byte[] key = counters.get(index);
    try {
      Optional<Versioned> current = client.get(key);
      CounterValue value =
          current.map(v -> CounterValue.decode(v.value())).orElse(CounterValue.zero());
      byte[] next = value.increment(clientId, seq).encode();
      if (current.isPresent()) {
        client.cas(key, current.get().version(), next);
      } else {
        client.create(key, next);
      }
      counted(index).incrementAndGet();
      return true;
    } catch (CasMismatchException | KeyExistsException lostRace) {
      return false;
    } catch (NotExecutedException notRun) {
      notExecuted.incrementAndGet();
      return false;
    } catch (OutcomeUnknownException unknown) {
      return resolve(index, key, clientId, seq);
    }
  }

  /**
   * Fences until it gets an answer (with back-off, for at most {@link #RESOLVE_DEADLINE_NANOS});
   * the fenced value says whether the increment took effect.
   */
  private boolean resolve(int index, byte[] key, int clientId, long seq) {
    long deadline = System.nanoTime() + RESOLVE_DEADLINE_NANOS;
    long backoffNanos = 10_000_000;
    while (true) {
      try {
        Optional<Versioned> fenced = client.fence(key);
        unknownResolved.incrementAndGet();
        boolean effective =
            fenced.isPresent() && CounterValue.decode(fenced.get().value()).includes(clientId, seq);
        if (effective) {
          counted(index).incrementAndGet();
        }
        return effective;
      } catch (FrsmException retry) {
        // The fence itself timed out or found no quorum: try again; the outcome stays pinned.
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "could not fence counter " + index + " to resolve an unknown outcome", retry);
        }
        java.util.concurrent.locks.LockSupport.parkNanos(backoffNanos);
        backoffNanos = Math.min(backoffNanos * 2, 1_000_000_000);
      }
    }
  }

  private AtomicLong counted(int index) {
    return tookEffect.computeIfAbsent(index, i -> new AtomicLong());
  }

  /**
   * Reads every counter and compares it with the increments that took effect. Returns a list of
   * discrepancies (empty when none was lost or doubled).
   */
  public List<String> verify() {
    List<String> problems = new ArrayList<>();
    for (int i = 0; i < counters.size(); i++) {
      Optional<Versioned> v = client.get(counters.get(i));
      long stored = v.map(x -> CounterValue.decode(x.value()).count()).orElse(0L);
      long expected = counted(i).get();
      if (stored != expected) {
        problems.add(
            "counter "
                + i
                + " holds "
                + stored
                + " but "
                + expected
                + " increments took effect ("
                + (stored < expected ? "lost" : "doubled")
                + ")");
      }
    }
    return problems;
  }

  public long incrementsTookEffect() {
    return tookEffect.values().stream().mapToLong(AtomicLong::get).sum();
  }

  public long unknownOutcomesResolved() {
    return unknownResolved.get();
  }

  public long notExecuted() {
    return notExecuted.get();
  }
}
