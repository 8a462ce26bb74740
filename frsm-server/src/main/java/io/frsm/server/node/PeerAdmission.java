package io.frsm.server.node;

import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Key;
import io.frsm.client.RequestLimits;
import io.frsm.consensus.core.Message;
import io.frsm.consensus.core.RangeTerm;

/**
 * What a node checks of a peer message before any core sees it, beyond the transport's decoding
 * (docs/formats/wire.md "Validated ranges"): what only the node knows. Keys and values must fit the
 * storage engine's limits — a persist the engine refused would stop the node — and a range must be
 * one of the ring's. A range's reserved term cell is written only through {@code TermPersist} and
 * {@code ListKeys}: a Paxos request or commit on it would move the range's term. A {@code Read} of
 * it writes nothing and is let through: it is the quorum watch's probe (docs/PROTOCOL.md "Step-down
 * and the quorum watch"), answered with the replica's term. Immutable.
 */
final class PeerAdmission {
  private final RequestLimits limits;
  private final int ranges;

  PeerAdmission(RequestLimits limits, int ranges) {
    this.limits = limits;
    this.ranges = ranges;
  }

  /** Null if {@code m} may reach a core, else why not (naming the field). */
  String refusal(Message m) {
    String key = key(m.key(), "key");
    if (key != null) {
      return key;
    }
    if (m instanceof Message.TermPersist t) {
      return range(t.range(), "term_persist.range");
    } else if (m instanceof Message.ListKeys l) {
      String range = range(l.range(), "list_keys.range");
      return range != null || l.after() == null ? range : key(l.after(), "list_keys.after");
    } else if (m instanceof Message.KeysListed listed) {
      for (Key k : listed.keys()) {
        String refused = key(k, "keys_listed.keys");
        if (refused != null) {
          return refused;
        }
      }
      return null;
    }
    if (RangeTerm.isReserved(m.key())
        && !(m instanceof Message.Read)
        && (m instanceof Message.Request
            || m instanceof Message.Commit
            || m instanceof Message.Purge)) {
      return m.getClass().getSimpleName() + " on a range's reserved term key";
    }
    if (m instanceof Message.Accept a) {
      return value(a.proposal(), "accept.proposal");
    } else if (m instanceof Message.Commit c) {
      return value(c.chosen(), "commit.chosen");
    } else if (m instanceof Message.Promise p) {
      return value(p.accepted(), "promise.accepted");
    } else if (m instanceof Message.Reject r) {
      return value(r.accepted(), "reject.accepted");
    } else if (m instanceof Message.ReadReply r) {
      return value(r.accepted(), "read_reply.accepted");
    }
    return null;
  }

  private String key(Key k, String field) {
    if (k.length() > limits.maxKeyBytes()) {
      return field
          + " of "
          + k.length()
          + " bytes exceeds the limit of "
          + limits.maxKeyBytes()
          + " bytes";
    }
    return null;
  }

  private String value(AcceptedValue a, String field) {
    if (a != null && a.valueUnsafe().length > limits.maxValueBytes()) {
      return field
          + " value of "
          + a.valueUnsafe().length
          + " bytes exceeds the limit of "
          + limits.maxValueBytes()
          + " bytes";
    }
    return null;
  }

  private String range(int range, String field) {
    if (range < 0 || range >= ranges) {
      return field + " " + range + " is not a range of the ring (0-" + (ranges - 1) + ")";
    }
    return null;
  }
}
