package io.frsm.transport.stream;

import io.frsm.transport.proto.StreamEnvelope;

/** One decoded, header-checked stream frame: its sender and its envelope (body set). */
public record StreamFrame(int senderNodeId, StreamEnvelope envelope) {}
