package io.frsm.consensus.core;

import io.frsm.cell.Key;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * A new range holder's scan (docs/DESIGN.md "Lease invariant" rule 5): after its term is durable at
 * {@code q} replicas, the holder lists the keys the range's replicas hold, page by page, and reads
 * each through a quorum (a mutating read where the newest value is not known chosen). When every
 * page is read, every key whose value was chosen before this term has its chosen value in the
 * holder's local cell, and the holder may enter leader-only mode.
 *
 * <p>Why {@code q} listings suffice: a {@link Message.ListKeys} persists the holder's term at the
 * replica first and is answered only once the replica's older accepts of the range are durable; a
 * value chosen under an older term was accepted by {@code q} replicas, and any {@code q} listings
 * include one of them. Accepts of the old holder that arrive later die at the term check.
 *
 * <p>Pages: each replica lists up to {@link #PAGE_KEYS} keys after the cursor, in (token, key)
 * order. The next cursor is the smallest last key among the listings that stopped early; keys past
 * it are left for the next page, so no replica's keys are skipped. A wrapping range is scanned as
 * two token segments. The next page is listed while the current one is still read, once fewer than
 * a window of its keys wait to start (docs/PROTOCOL.md "Scan pages"): pages are disjoint and each
 * key's read stands alone, so when a page is listed changes nothing a read guarantees, and the
 * window no longer runs dry at each page's end for a listing's round trip.
 *
 * <p>Hottest first (docs/PROTOCOL.md "Hot keys first"): a client operation on a key the scan has
 * not settled yet may {@link #pull} it forward: the key is read at once by the same scan read,
 * ahead of the scan order, and once that read answered it is <em>settled ahead</em>: servable in
 * leader-only mode before the rest of the range, and skipped when its page comes. A pull is one of
 * the scan's reads (a page waits for it, a failed one is retried like any other). A key whose read
 * did not answer {@link #READ_ATTEMPTS} times is left unsettled ({@link Progress#keySkipped}) and
 * never servable in leader-only mode until a round of this node learns its chosen value. At most
 * {@link #PULLS_IN_FLIGHT} pulls run at once and at most {@link #PULLED_KEYS_MAX} keys are
 * remembered per scan: beyond that operations run in quorum mode as before until the scan reaches
 * their keys.
 */
final class RangeScan {
  static final int PAGE_KEYS = 256;
  static final int READS_IN_FLIGHT = 32;

  /** Pulled-forward reads running at once, beside the scan's own {@link #READS_IN_FLIGHT}. */
  static final int PULLS_IN_FLIGHT = 32;

  /** Keys a scan pulls forward at most (their set lives until the scan ends). */
  static final int PULLED_KEYS_MAX = 65_536;

  /** Where the scan reports each key it settled (counters). */
  interface Progress {
    Progress NONE = new Progress() {};

    /** A scan read of the scan's own order answered. */
    default void settledByScan() {}

    /** A pulled-forward read answered, {@code nanos} after the pull. */
    default void settledByPull(long nanos) {}

    /** A read of the scan (its own order or a pull) answered for {@code key}. */
    default void keyRead(Key key) {}

    /**
     * The holder's scan gave up on {@code key} after {@link #READ_ATTEMPTS} reads that did not
     * answer: the key stays unsettled until a round of this node learns its chosen value.
     */
    default void keySkipped(Key key) {}
  }

  /**
   * Reads of one key a holder's scan tries before it leaves the key unsettled and moves on (a
   * membership settle, term 0, never gives up: the ring change's safety rests on every key). A read
   * that cannot answer may be blocked for as long as a voter is gone: it must re-commit the key's
   * newest value M at M's own instance (a scan read never moves a version), and a live voter that
   * holds a lower-ballot leftover one instance above can never take a lower instance, so with the
   * other live voters short of {@code q} no attempt can succeed (docs/PROTOCOL.md "A key the scan
   * cannot settle"). Waiting for it would keep the range out of leader-only mode and the key's
   * operations queued behind the scan's reads for good; left unsettled, the key is served by
   * rounds, whose proposals go above the leftover.
   */
  static final int READ_ATTEMPTS = 2;

  /**
   * Where the scan's quorum reads go. Passed with each call that may start reads, never held, so
   * the scan keeps no reference to the core around it.
   */
  @FunctionalInterface
  interface Reads {
    /**
     * Submits an internal quorum read of {@code key}; returns its request id (negative, never a
     * client's), with which its outcome comes back to {@link #onRead}.
     */
    long read(Now now, Key key, List<Effect> out);
  }

  final int range;

  /** The holder's term; 0 for a settle ({@link RangeSettles}), whose listings persist no term. */
  final long term;

  /** The ring version the listings carry: the placement's the scan was built with. */
  final long ringVersion;

  private final Incarnation incarnation;
  private final long roundTimeoutNanos;
  private final List<Integer> replicas;
  private final int quorum;
  private final List<long[]> segments;
  private int segment;
  private Key cursor;

  private RoundId listRound;
  private long listSentNanos;
  private final Map<Integer, Message.KeysListed> listings = new HashMap<>();

  /** Every page of every segment was listed: the scan ends once their reads answered. */
  private boolean listedAll;

  private final ArrayDeque<Key> toRead = new ArrayDeque<>();
  private final List<Key> failed = new ArrayList<>();

  /** Reads of a key that did not answer, per key, until it answers or is skipped. */
  private final Map<Key, Integer> attempts = new HashMap<>();

  private long retryAtNanos;
  private final Map<Long, Key> reading = new HashMap<>();
  private boolean finished;
  private long keysRead;
  private long keysSkipped;

  /** The reads of pulled keys in flight: request id to the monotonic time of the pull. */
  private final Map<Long, Long> pulls = new HashMap<>();

  private final Set<Key> pulling = new HashSet<>();

  /** Keys whose pulled read answered in this scan: settled ahead of the scan order. */
  private final Set<Key> settledAhead = new HashSet<>();

  private Progress progress = Progress.NONE;

  /** Null: the read window alone bounds the reads (a holder's scan; an unpaced settle). */
  private SettlePace pace;

  /** Sabotage {@link Sabotage#PULL_FORWARD_WITHOUT_READ}: a pull marks its key settled at once. */
  private boolean pullWithoutRead;

  /**
   * @param roundTimeoutNanos how long a listing or a failed read waits before it is asked again
   */
  RangeScan(
      Incarnation incarnation, long roundTimeoutNanos, Placement placement, int range, long term) {
    this.incarnation = incarnation;
    this.roundTimeoutNanos = roundTimeoutNanos;
    this.range = range;
    this.term = term;
    this.ringVersion = placement.ringVersion();
    this.replicas = placement.replicas(range);
    this.quorum = CoreConfig.quorum(replicas.size());
    this.segments = segments(placement, range);
  }

  /** The token segments {@code [from, to]} of {@code range}, in scan order. */
  static List<long[]> segments(Placement placement, int range) {
    if (placement.rangeCount() == 1) {
      return List.of(new long[] {Long.MIN_VALUE, Long.MAX_VALUE});
    }
    long start = placement.startTokenExclusive(range);
    long end = placement.endToken(range);
    if (start < end) {
      return List.of(new long[] {start + 1, end});
    }
    List<long[]> wrapped = new ArrayList<>(2);
    wrapped.add(new long[] {Long.MIN_VALUE, end});
    if (start < Long.MAX_VALUE) {
      wrapped.add(new long[] {start + 1, Long.MAX_VALUE});
    }
    return wrapped;
  }

  void start(Now now, List<Effect> out) {
    sendListing(now, out);
  }

  /** From now on each settled key is reported to {@code progress}. */
  void reportTo(Progress progress) {
    this.progress = java.util.Objects.requireNonNull(progress);
  }

  /**
   * From now on the scan's own reads start no faster than {@code pace} allows (a membership
   * settle's, {@link RangeSettles}); a paced-out read starts at a later {@link #tick}.
   */
  void pacedBy(SettlePace pace) {
    this.pace = java.util.Objects.requireNonNull(pace);
  }

  /** Breaks the pull on purpose (tests only: {@link Sabotage#PULL_FORWARD_WITHOUT_READ}). */
  void pullWithoutRead() {
    this.pullWithoutRead = true;
  }

  /**
   * Pulls {@code key} (of this scan's range) forward: starts its scan read now, unless the key is
   * settled ahead or being pulled already, the scan is finished, or a bound is reached. Returns
   * whether a read started.
   */
  boolean pull(Now now, Key key, Reads reads, List<Effect> out) {
    if (finished
        || settledAhead.contains(key)
        || pulling.contains(key)
        || pulls.size() >= PULLS_IN_FLIGHT
        || settledAhead.size() + pulls.size() >= PULLED_KEYS_MAX) {
      return false;
    }
    if (pullWithoutRead) {
      settledAhead.add(key); // the broken rule: settled without the quorum step
      return false;
    }
    long id = scanReadOf(key);
    if (id == 0) {
      id = reads.read(now, key, out);
      reading.put(id, key);
    } // else the scan reads the key already: that read settles it ahead when it answers
    pulls.put(id, now.monoNanos());
    pulling.add(key);
    return true;
  }

  /** The id of the scan's own read of {@code key} in flight, or 0 (ids are never 0). */
  private long scanReadOf(Key key) {
    for (Map.Entry<Long, Key> e : reading.entrySet()) {
      if (e.getValue().equals(key) && !pulls.containsKey(e.getKey())) {
        return e.getKey();
      }
    }
    return 0;
  }

  /**
   * Whether {@code key}'s scan read answered ahead of the scan order in this scan: with the term
   * durable at {@code q} replicas and the lease held, the local cell holds every value of the key
   * chosen before this term (docs/PROTOCOL.md "Hot keys first").
   */
  boolean settledAhead(Key key) {
    return settledAhead.contains(key);
  }

  /** Pulled reads running now (tests and diagnostics). */
  int pullsInFlight() {
    return pulls.size();
  }

  boolean finished() {
    return finished;
  }

  /** Whether {@code round} is this scan's listing round now. */
  boolean listing(RoundId round) {
    return listRound != null && listRound.equals(round);
  }

  long keysRead() {
    return keysRead;
  }

  /** Keys this scan left unsettled after {@link #READ_ATTEMPTS} reads that did not answer. */
  long keysSkipped() {
    return keysSkipped;
  }

  private void sendListing(Now now, List<Effect> out) {
    listRound = incarnation.newRoundId();
    listSentNanos = now.monoNanos();
    listings.clear();
    long[] seg = segments.get(segment);
    Key rangeKey = RangeTerm.cellKey(range);
    for (int to : replicas) {
      out.add(
          new Effect.Send(
              to,
              new Message.ListKeys(
                  rangeKey,
                  listRound,
                  range,
                  term,
                  seg[0],
                  seg[1],
                  cursor,
                  PAGE_KEYS,
                  ringVersion)));
    }
  }

  /** A listing arrived; with {@code q} of them the page's keys are read. */
  void onListed(Now now, int from, Message.KeysListed listed, Reads reads, List<Effect> out) {
    if (finished || listRound == null || !listed.round().equals(listRound)) {
      return; // late, or a duplicate of a page already taken
    }
    listings.put(from, listed);
    if (listings.size() < quorum) {
      return;
    }
    listRound = null;
    Key bound = null;
    for (Message.KeysListed l : listings.values()) {
      if (l.more()) {
        Key last = l.keys().get(l.keys().size() - 1);
        bound = bound == null || last.compareTo(bound) < 0 ? last : bound;
      }
    }
    TreeSet<Key> page = new TreeSet<>();
    for (Message.KeysListed l : listings.values()) {
      for (Key k : l.keys()) {
        if (bound == null || k.compareTo(bound) <= 0) {
          page.add(k);
        }
      }
    }
    toRead.addAll(page);
    if (bound != null) {
      cursor = bound; // the next page of this segment starts after the page's last key
    } else {
      cursor = null;
      segment++;
      listedAll = segment == segments.size();
    }
    pump(now, reads, out);
  }

  /** An internal read ended: a read that did not answer is retried after a round timeout. */
  void onRead(Now now, long id, Outcome outcome, Reads reads, List<Effect> out) {
    Key key = reading.remove(id);
    if (key == null) {
      return;
    }
    Long pulledAt = pulls.remove(id);
    if (pulledAt != null) {
      pulling.remove(key);
    }
    if (outcome instanceof Outcome.ReadResult) {
      keysRead++;
      attempts.remove(key);
      progress.keyRead(key);
      if (pulledAt != null) {
        settledAhead.add(key);
        progress.settledByPull(now.monoNanos() - pulledAt);
      } else {
        progress.settledByScan();
      }
    } else if (term > 0 && attempts.merge(key, 1, Integer::sum) >= READ_ATTEMPTS) {
      attempts.remove(key);
      keysSkipped++;
      progress.keySkipped(key); // before the scan can finish: the key is never servable unread
    } else {
      // A read (or pull) that failed is retried as a scan read after a round timeout.
      if (failed.isEmpty()) {
        retryAtNanos = now.monoNanos() + roundTimeoutNanos;
      }
      failed.add(key);
    }
    pump(now, reads, out);
  }

  void tick(Now now, Reads reads, List<Effect> out) {
    if (finished) {
      return;
    }
    if (listRound != null && now.monoNanos() - listSentNanos >= roundTimeoutNanos) {
      sendListing(now, out); // fewer than q listings in time: ask again under a new round
      return;
    }
    if (!failed.isEmpty() && now.monoNanos() - retryAtNanos >= 0) {
      toRead.addAll(failed);
      failed.clear();
      pump(now, reads, out);
    } else if (pace != null && !toRead.isEmpty()) {
      pump(now, reads, out); // reads the pace held back
    }
  }

  /** Starts reads up to the window; when the page is fully read, moves to the next page. */
  private void pump(Now now, Reads reads, List<Effect> out) {
    while (reading.size() - pulls.size() < READS_IN_FLIGHT && !toRead.isEmpty()) {
      Key key = toRead.peek();
      if (settledAhead.contains(key) || pulling.contains(key)) {
        // Settled ahead; or its pull is running, and the page waits for it in `reading` (a
        // failed pull comes back through `failed`).
        toRead.poll();
        continue;
      }
      if (pace != null && !pace.tryStart(now.monoNanos())) {
        break; // the next tick starts it
      }
      toRead.poll();
      // The read's outcome comes back at the earliest at the end of this step (the core takes its
      // own reads' replies there), so recording it after submitting is in time.
      reading.put(reads.read(now, key, out), key);
    }
    if (listRound != null) {
      return; // a page's listing is out: at most one at a time
    }
    if (!listedAll) {
      if (toRead.size() < READS_IN_FLIGHT) {
        sendListing(now, out); // the next page, while this one's last reads run
      }
      return;
    }
    if (reading.isEmpty() && toRead.isEmpty() && failed.isEmpty()) {
      finished = true;
    }
  }
}
