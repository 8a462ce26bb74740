package io.frsm.consensus.core;

import io.frsm.api.Version;
import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import io.frsm.cell.PurgeMark;

/**
 * The ranges of the numbers {@link NodeCore#step} accepts in client requests and peer messages
 * (docs/PROTOCOL.md "Input bounds"; field by field on the wire: docs/formats/wire.md "Validated
 * ranges").
 *
 * <p>The protocol only ever adds small amounts to the numbers it receives: a CAS writes {@code (e,
 * t+1)}, a fence or mutating read quenches at {@code t+1}, a prepare picks a round one above every
 * round seen, an operation's deadline is {@code τ + T}. Every such number is therefore kept at or
 * below {@link #MAX_NUMBER}, half of {@code Long.MAX_VALUE}, so that arithmetic cannot overflow
 * however the inputs are chosen. The real values are far below it: rounds and τ are wall-clock
 * microseconds (about 2^51 today), timestamps count writes, terms count hand-overs.
 *
 * <p>A value the core would itself produce above the bound (a quench of a value planted at the
 * bound) ends that operation as not executed instead ({@link Run}).
 */
public final class InputBounds {
  /**
   * The largest epoch, timestamp, ballot round, range term, invocation time τ (µs) and purge mark
   * time (ms) an input may carry. A CAS or delete's expected timestamp must be below it (the write
   * lands at timestamp + 1).
   */
  public static final long MAX_NUMBER = Long.MAX_VALUE / 2;

  private InputBounds() {}

  /**
   * Checks every number of {@code input} that the core computes with. Only client requests and peer
   * messages come from outside the node; the other inputs are the driver's own.
   *
   * @throws RefusedInputException naming the first field out of range
   */
  static void check(Input input, Placement placement) {
    if (input instanceof Input.ClientRequest request) {
      checkClientRequest(request);
    } else if (input instanceof Input.Receive receive) {
      if (receive.from() < 0) {
        throw new RefusedInputException("receive.from " + receive.from() + " is below 0");
      }
      checkMessage(receive.message(), placement);
    } else if (input instanceof Input.ImportShipment imported) {
      HandOffShipment s = imported.shipment();
      range(s.range(), placement, "shipment.range");
      number(s.term(), "shipment.term");
      for (HandOffShipment.Entry e : s.entries()) {
        accepted(e.chosen(), "shipment.entry");
      }
    } else if (input instanceof Input.HandOff handOff) {
      range(handOff.range(), placement, "hand_off.range");
    } else if (input instanceof Input.RestoreBase restore) {
      range(restore.range(), placement, "restore_base.range"); // read from a file: may be anything
      number(restore.term(), "restore_base.term");
    }
  }

  private static void checkClientRequest(Input.ClientRequest request) {
    if (request.requestId() < 0) {
      throw new RefusedInputException(
          "client request ids are >= 0 (negative ones are the core's own): " + request.requestId());
    }
    if (RangeTerm.isReserved(request.operation().key())) {
      throw new RefusedInputException("reserved key: " + request.operation().key());
    }
    number(request.invokedAtMicros(), "invoked_at_micros");
    Operation op = request.operation();
    if (op instanceof Operation.Cas cas) {
      expected(cas.expected(), "cas.expected");
    } else if (op instanceof Operation.Delete delete) {
      expected(delete.expected(), "delete.expected");
    }
  }

  private static void expected(Version expected, String where) {
    number(expected.epoch(), where, ".epoch");
    if (expected.timestamp() >= MAX_NUMBER) {
      throw new RefusedInputException(
          where
              + ".timestamp "
              + expected.timestamp()
              + " is not below the maximum "
              + MAX_NUMBER
              + " (the write lands at timestamp + 1)");
    }
  }

  private static void checkMessage(Message m, Placement placement) {
    if (m instanceof Message.Request request) {
      number(request.ringVersion(), "ring_version");
    } else if (m instanceof Message.Purge purge) {
      number(purge.ringVersion(), "purge.ring_version");
    } else if (m instanceof Message.StaleRing stale) {
      number(stale.ringVersion(), "stale_ring.ring_version");
    }
    if (m instanceof Message.Prepare p) {
      ballot(p.ballot(), "prepare.ballot");
      number(p.term(), "prepare.term");
    } else if (m instanceof Message.Promise p) {
      ballot(p.ballot(), "promise.ballot");
      ballot(p.previous(), "promise.previous");
      accepted(p.accepted(), "promise.accepted");
    } else if (m instanceof Message.Accept a) {
      accepted(a.proposal(), "accept.proposal");
      number(a.term(), "accept.term");
    } else if (m instanceof Message.Accepted a) {
      ballot(a.ballot(), "accepted.ballot");
      number(a.epoch(), "accepted.epoch");
      number(a.timestamp(), "accepted.timestamp");
    } else if (m instanceof Message.Reject r) {
      ballot(r.ballot(), "reject.ballot");
      ballot(r.promised(), "reject.promised");
      accepted(r.accepted(), "reject.accepted");
    } else if (m instanceof Message.ReadReply r) {
      ballot(r.promised(), "read_reply.promised");
      accepted(r.accepted(), "read_reply.accepted");
    } else if (m instanceof Message.Commit c) {
      accepted(c.chosen(), "commit.chosen");
    } else if (m instanceof Message.TermPersist t) {
      range(t.range(), placement, "term_persist.range");
      number(t.term(), "term_persist.term");
      number(t.floorRound(), "term_persist.floor_round");
    } else if (m instanceof Message.TermPersisted t) {
      number(t.term(), "term_persisted.term");
      if (t.previous() != null) {
        termRecord(t.previous(), t.term(), "term_persisted.previous");
      }
    } else if (m instanceof Message.StaleTerm t) {
      number(t.term(), "stale_term.term");
    } else if (m instanceof Message.ListKeys l) {
      range(l.range(), placement, "list_keys.range");
      number(l.term(), "list_keys.term");
    } else if (m instanceof Message.Purge p) {
      purgeMark(p.mark());
    }
    // Read and KeysListed carry no number the core computes with.
  }

  private static void purgeMark(PurgeMark mark) {
    number(mark.epoch(), "purge.epoch");
    number(mark.timestamp(), "purge.timestamp");
    number(mark.markTimeMs(), "purge.mark_time_ms");
  }

  private static void accepted(AcceptedValue a, String where) {
    if (a != null) {
      number(a.epoch(), where, ".epoch");
      number(a.timestamp(), where, ".timestamp");
      number(a.accepted().round(), where, ".accepted.round"); // as ballot() checks a ballot
    }
  }

  /**
   * A term record from a peer: its numbers in bounds and its term below {@code below} (the term it
   * preceded); the record checks signs itself.
   */
  private static void termRecord(TermRecord r, long below, String where) {
    number(r.term(), where, ".term");
    number(r.floorRound(), where, ".floor_round");
    if (r.term() >= below) {
      throw new RefusedInputException(
          where + ".term " + r.term() + " is not below the acknowledged term " + below);
    }
  }

  /** Ballots are checked for sign by their record; the round must leave room for round + 1. */
  private static void ballot(Ballot b, String where) {
    number(b.round(), where, ".round");
  }

  private static void range(int range, Placement placement, String where) {
    if (range < 0 || range >= placement.rangeCount()) {
      throw new RefusedInputException(
          where
              + " "
              + range
              + " is not a range of the ring (0-"
              + (placement.rangeCount() - 1)
              + ")");
    }
  }

  private static void number(long value, String where) {
    number(value, where, "");
  }

  /**
   * As {@link #number(long, String)} for the field {@code where + field}, the name joined only when
   * the value is refused: every peer message passes here, so a name built up front would be a
   * string allocated per message for nothing (issue 26).
   */
  private static void number(long value, String where, String field) {
    if (value < 0 || value > MAX_NUMBER) {
      throw new RefusedInputException(
          where + field + " " + value + " is outside [0, " + MAX_NUMBER + "]");
    }
  }
}
