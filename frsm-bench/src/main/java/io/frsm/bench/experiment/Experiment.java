package io.frsm.bench.experiment;

/** One of the paper-evaluation experiments of issue 5, runnable by name. */
interface Experiment {

  /** The command-line name, e.g. {@code latency-throughput}. */
  String name();

  /** Runs it, writes its charts under {@code options.out()} and returns its table and sanity. */
  ExperimentReport run(ExperimentOptions options) throws Exception;
}
