package io.frsm.consensus.core;

/**
 * Deliberate protocol bugs, for tests only: each one breaks a rule the safety argument needs, so a
 * test can show that the simulator's checkers catch it. Production configurations never set any.
 */
public enum Sabotage {
  /** The acceptor accepts a proposal whatever ballot it promised. */
  ACCEPT_WITHOUT_PROMISE_CHECK,
  /** The acceptor replies PROMISE/ACCEPTED as soon as it asks for the persist, not after it. */
  ACK_BEFORE_PERSIST,
  /** Mutating reads and fences answer the newest value without bumping it to {@code t+1}. */
  SKIP_QUENCH,
  /**
   * A successor sends its term persist, and then accepts, right after its term bump instead of
   * waiting {@code L·(1+ρ)}: the old holder may still serve leader-only reads.
   */
  SKIP_LEASE_WAIT,
  /** A node in leader-only mode serves local reads without checking {@code now < leaseEnd}. */
  SERVE_READ_WITHOUT_LEASE_CHECK,
  /**
   * A new holder enters leader-only mode as soon as its term is persisted, without scanning the
   * range: keys chosen under an older term whose value its local cell lacks are read stale.
   */
  SKIP_RANGE_SCAN,
  /**
   * A released term is marked clean although its holder never waited out its predecessors' leases:
   * the next successor skips its wait while a lease two terms back may still be in force.
   */
  RELEASE_BEFORE_WAIT,
  /**
   * A key pulled forward during a range scan (docs/PROTOCOL.md "Hot keys first") is marked settled
   * without its quorum read: it is served in leader-only mode from a local cell that may lack a
   * value chosen under an older term, and the scan skips it.
   */
  PULL_FORWARD_WITHOUT_READ,
  /** A release is reported (and marked) but the holder keeps its lease and serves on. */
  RELEASE_KEEPS_LEASE,
  /**
   * A commit that brings a replica a delete it lacks is an unlogged hint like a live value's:
   * delete phase 1 may count a replica whose delete a crash can still take back.
   */
  DELETE_COMMIT_AS_HINT,
  /**
   * A learner's replies count toward quorums like a voter's: rounds go to the learners too, and
   * their acks complete a quorum of the voters' size.
   */
  LEARNER_VOTES,
  /** The acceptor takes requests and purges of any ring version, however old. */
  IGNORE_RING_VERSION,
  /**
   * A hand-off ships at once (docs/PROTOCOL.md "Hand-off instead of a scan"): no settle reads, no
   * waiting for the rounds in flight; each written key ships its newest local value as if chosen,
   * so the successor may serve a value no quorum accepted, or miss one a round in flight chooses.
   */
  SHIP_BEFORE_RECOMMIT,
  /**
   * A hand-off's drain settles a written key only if its local cell holds no chosen value
   * (docs/PROTOCOL.md "Settle only what may be open"): a key whose round failed after its local
   * accept lost the race to a chosen one, or whose accept is still in flight, ships a value an
   * accept of the holder may still supersede.
   */
  DRAIN_IGNORES_OPEN_ACCEPTS,
  /**
   * The holder ships but does not end its term: it goes on taking the range's operations until the
   * agent's release arrives, while the successor imports the shipment as if it were final.
   */
  IMPORT_WITHOUT_RELEASE,
  /**
   * A holder does not count the keys whose values carry its predecessor's ballots as written
   * (docs/PROTOCOL.md "A killed holder: covering its term"): a shipment marked as covering the
   * predecessor's term misses keys chosen in it.
   */
  DROP_TERM_CLASSIFICATION,
  /**
   * A returning node imports a shipment on an entry base whatever the shipment covers
   * (docs/PROTOCOL.md "A killed holder: covering its term", step 4): a stand-in's shipment that
   * does not name the keys chosen in the entry base's term leaves them stale at the importer.
   */
  IMPORT_ENTRY_BASE_WITHOUT_COVERAGE,
  /**
   * The entry base is reached as the range enters leader-only mode, without waiting for the values
   * its scan learned to reach the cells (step 3): the flush that follows may miss them.
   */
  ENTRY_BASE_BEFORE_CATCH_UP,
  /**
   * A range in leader-only mode keeps it through any voter change that leaves its holder a voter,
   * not only one that adds or removes exactly one node (docs/PROTOCOL.md "A voter change in
   * leader-only mode"): the quorum that holds the term may miss every quorum of the new voters.
   */
  KEEP_LEADER_ONLY_ACROSS_ANY_VOTER_CHANGE,
  /**
   * A range that keeps leader-only mode through a voter change does not persist its term at the new
   * voters: after a further change, only voters two or more versions back may hold the term.
   */
  KEEP_LEADER_ONLY_WITHOUT_REPERSIST
}
