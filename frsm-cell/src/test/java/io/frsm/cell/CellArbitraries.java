package io.frsm.cell;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/**
 * Random cells of one key drawn from a small space, so that equal instances, equal ballots and
 * chosen flags collide often. Values are a function of (epoch, timestamp, ballot) — one value per
 * ballot per instance, as the protocol guarantees — so merge conflicts only occur where a test
 * asks.
 */
public final class CellArbitraries {
  static final Key KEY = Key.of(new byte[] {'k'});

  private CellArbitraries() {}

  static Arbitrary<Ballot> ballots() {
    return Arbitraries.oneOf(
        Arbitraries.just(Ballot.NONE),
        Combinators.combine(
                Arbitraries.longs().between(1, 4),
                Arbitraries.integers().between(0, 2),
                Arbitraries.integers().between(0, 1))
            .as(Ballot::new));
  }

  static Arbitrary<AcceptedValue> accepted() {
    Arbitrary<Ballot> real =
        Combinators.combine(
                Arbitraries.longs().between(1, 4),
                Arbitraries.integers().between(0, 2),
                Arbitraries.integers().between(0, 1))
            .as(Ballot::new);
    return Combinators.combine(
            Arbitraries.longs().between(0, 2),
            Arbitraries.longs().between(0, 2),
            real,
            Arbitraries.of(true, false))
        .as(
            (e, t, b, chosen) ->
                isDelete(e, t, b)
                    ? AcceptedValue.delete(e, t, b, chosen, tokenFor(e, t, b))
                    : AcceptedValue.live(e, t, b, valueFor(e, t, b), chosen, tokenFor(e, t, b)));
  }

  /** The token, too, is a function of the proposal; about half the proposals carry one. */
  static IdempotencyToken tokenFor(long e, long t, Ballot b) {
    return (e + 2 * t + b.round() + b.nodeId()) % 2 == 0
        ? null
        : new IdempotencyToken(e * 1_000 + t, b.round() * 1_000 + b.nodeId() * 10 + b.boot());
  }

  /** The kind, too, is a function of the proposal: one value per ballot per instance. */
  static boolean isDelete(long e, long t, Ballot b) {
    return (e + t + b.round() + b.nodeId() + b.boot()) % 3 == 0;
  }

  static byte[] valueFor(long e, long t, Ballot b) {
    return new byte[] {(byte) e, (byte) t, (byte) b.round(), (byte) b.nodeId(), (byte) b.boot()};
  }

  public static Arbitrary<Cell> cells() {
    Arbitrary<PurgeMark> purge =
        Combinators.combine(
                Arbitraries.longs().between(0, 2),
                Arbitraries.longs().between(0, 2),
                Arbitraries.longs().between(0, 3))
            .as(PurgeMark::new);
    return Combinators.combine(
            ballots(),
            accepted().injectNull(0.3),
            purge.injectNull(0.7),
            Arbitraries.longs().between(0, 5))
        .as((p, a, pm, w) -> new Cell(KEY, p, a, pm, w));
  }
}
