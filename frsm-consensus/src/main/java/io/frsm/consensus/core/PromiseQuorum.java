package io.frsm.consensus.core;

import io.frsm.cell.AcceptedValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What the {@code q} promises of a successful prepare tell the run that sent it: M, the largest
 * accepted part among them (null: ⊥), whether a promise at M's instance carried the chosen flag,
 * and who promised (the replicas a cold accept goes to).
 *
 * @param m the largest accepted part by {@link #newerProposal}; null when every promise shows ⊥
 * @param mChosen a promise at M's instance marked it chosen
 * @param promisers the replicas that promised, in the order their promises arrived
 */
record PromiseQuorum(AcceptedValue m, boolean mChosen, List<Integer> promisers) {

  /** Reads the promises of {@code prepare}, a prepare round whose replies are all promises. */
  static PromiseQuorum of(Round prepare) {
    AcceptedValue m = null;
    List<Integer> who = new ArrayList<>();
    for (Map.Entry<Integer, Message.Reply> e : prepare.replies.entrySet()) {
      Message.Promise p = (Message.Promise) e.getValue();
      who.add(e.getKey());
      if (p.accepted() != null && (m == null || newerProposal(p.accepted(), m))) {
        m = p.accepted();
      }
    }
    boolean mChosen = false;
    for (Message.Reply reply : prepare.replies.values()) {
      AcceptedValue a = ((Message.Promise) reply).accepted();
      mChosen |= m != null && a != null && a.sameInstance(m) && a.chosen();
    }
    return new PromiseQuorum(m, mChosen, List.copyOf(who));
  }

  /**
   * The proposal order for choosing M: accepted ballot first, then instance. Classic Paxos picks
   * the highest ballot; the instance only orders the proposals one ballot made on a warm chain.
   * Ordering by instance first (the merge join's order) is unsafe: a quench or CAS at {@code t+1}
   * that reached only a minority under ballot b1 may sit above the value a higher ballot b2 chose
   * at {@code t}; picking it would resurrect the value b2 replaced (simulator seed 28; see
   * docs/PROTOCOL.md "Where the code differs").
   */
  static boolean newerProposal(AcceptedValue a, AcceptedValue b) {
    int c = a.accepted().compareTo(b.accepted());
    return c != 0 ? c > 0 : a.compareInstance(b) > 0;
  }
}
