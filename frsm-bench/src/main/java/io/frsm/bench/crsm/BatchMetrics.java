package io.frsm.bench.crsm;

import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;

/** How leaders batched: slots proposed and the client commands they carried. Thread-safe. */
public final class BatchMetrics {
  private final LongAdder slots = new LongAdder();
  private final LongAdder commands = new LongAdder();
  private final LongAdder slotsWithSeveralCommands = new LongAdder();
  private final LongAccumulator largestBatch = new LongAccumulator(Math::max, 0);

  void recordProposal(int batchCommands) {
    slots.increment();
    commands.add(batchCommands);
    if (batchCommands > 1) {
      slotsWithSeveralCommands.increment();
    }
    largestBatch.accumulate(batchCommands);
  }

  /** Slots proposed by leaders for client commands (recovery re-proposals not counted). */
  public long slots() {
    return slots.sum();
  }

  public long commands() {
    return commands.sum();
  }

  /** Slots that carried more than one command. */
  public long slotsWithSeveralCommands() {
    return slotsWithSeveralCommands.sum();
  }

  public long largestBatch() {
    return largestBatch.get();
  }

  public double meanBatch() {
    long s = slots();
    return s == 0 ? 0 : (double) commands() / s;
  }
}
