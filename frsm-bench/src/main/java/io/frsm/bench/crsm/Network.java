package io.frsm.bench.crsm;

/** How the nodes of a {@link CrsmCluster} talk to each other. */
public enum Network {
  /**
   * Messages handed over as objects between threads: no serialization, no sockets. Cheaper than any
   * real network; kept for quick runs and tests.
   */
  IN_JVM,

  /**
   * Each node has its own Netty peer transport ({@link CrsmWireCodec} over frsm's {@code
   * FramedPeerTransport}) on a loopback ephemeral port and its own event loops: the transport
   * frsm's nodes use, so the two systems can be compared.
   */
  NETTY
}
