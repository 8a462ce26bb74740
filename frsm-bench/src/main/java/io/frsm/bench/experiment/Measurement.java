package io.frsm.bench.experiment;

import io.frsm.api.FrsmClient;
import io.frsm.server.workload.CounterCheck;
import io.frsm.server.workload.WorkloadRunner;
import io.frsm.server.workload.WorkloadSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * Runs one step of an experiment: an unmeasured warm-up, then the measured workload with the
 * Appendix C counter check beside it (two extra client threads incrementing a few counters), then
 * the check's verification. Every step of every experiment goes through here, so every step checks
 * that no acknowledged write was lost, and every step reports the CPU the JVM spent over its
 * measured run ({@link CpuClock}).
 */
final class Measurement {
  static final int COUNTER_THREADS = 2;
  static final int COUNTERS = 4;
  private static final AtomicLong RUNS = new AtomicLong();

  private Measurement() {}

  /**
   * What one step runs.
   *
   * @param spec the measured workload
   * @param warmup how long the same workload runs unmeasured first
   * @param label the step's name in progress lines
   * @param progress where progress lines go
   */
  record Step(WorkloadSpec spec, Duration warmup, String label, Consumer<String> progress) {}

  static Point run(FrsmClient client, FrsmClient checkClient, Step step)
      throws InterruptedException {
    return run(client, checkClient, step, () -> {});
  }

  /**
   * A step measured on frsm, and what its nodes counted over the measured run (the counter check's
   * calls included).
   */
  record OnFrsm(Point point, FrsmLocalCluster.Counters counted) {}

  /** As above, on {@code frsm}'s nodes, with what they counted over the measured run. */
  static OnFrsm run(FrsmLocalCluster frsm, FrsmClient client, FrsmClient checkClient, Step step)
      throws InterruptedException {
    AtomicReference<FrsmLocalCluster.Counters> before = new AtomicReference<>();
    Point p = run(client, checkClient, step, () -> before.set(frsm.counters()));
    return new OnFrsm(p, frsm.counters().minus(before.get()));
  }

  /** As above; {@code atMeasuredStart} runs after the warm-up, just before the measured run. */
  private static Point run(
      FrsmClient client, FrsmClient checkClient, Step step, Runnable atMeasuredStart)
      throws InterruptedException {
    WorkloadSpec spec = step.spec();
    String label = step.label();
    Consumer<String> progress = step.progress();
    LongAdder safeRetries = new LongAdder();
    client = new SafeRetries(client, safeRetries);
    if (!step.warmup().isZero()) {
      new WorkloadRunner(client, withDuration(spec, step.warmup()), line -> {}).run();
    }
    CounterCheck check =
        new CounterCheck(
            checkClient,
            COUNTERS,
            "run" + RUNS.incrementAndGet() + "-" + ProcessHandle.current().pid());
    atMeasuredStart.run();
    AtomicBoolean stop = new AtomicBoolean();
    List<String> failures = new CopyOnWriteArrayList<>();
    List<Thread> incrementers = new ArrayList<>();
    for (int t = 0; t < COUNTER_THREADS; t++) {
      int clientId = t + 1;
      Thread th =
          new Thread(
              () -> {
                SplittableRandom random = new SplittableRandom(clientId);
                try {
                  for (long seq = 1; !stop.get(); seq++) {
                    check.incrementOnce(random.nextInt(COUNTERS), clientId, seq);
                  }
                } catch (RuntimeException e) {
                  // CounterCheck handles every outcome the API defines; anything else is a fault.
                  failures.add("counter client " + clientId + " failed: " + e);
                }
              },
              "counter-check-" + clientId);
      th.setDaemon(true);
      incrementers.add(th);
      th.start();
    }
    // The CPU window is the workload's run, the window its ops/s is counted over; the counter
    // check's threads run across it, so their CPU is in it (as it is in every system's figure).
    CpuClock.Window cpuWindow = CpuClock.ofThisJvm().start();
    var result =
        new WorkloadRunner(client, spec, line -> progress.accept(label + "  " + line)).run();
    CpuClock.CpuUse cpu = cpuWindow.stop();
    if (result.errors() > 0) {
      progress.accept(label + ": operations failed; " + result.summary().strip());
    }
    stop.set(true);
    for (Thread th : incrementers) {
      th.join();
    }
    List<String> problems = new ArrayList<>(failures);
    problems.addAll(check.verify());
    return new Point(result, check.incrementsTookEffect(), problems, safeRetries.sum(), cpu);
  }

  static WorkloadSpec withDuration(WorkloadSpec s, Duration d) {
    return new WorkloadSpec(
        s.keyCount(),
        s.zipfTheta(),
        s.readFraction(),
        s.valueSizeBytes(),
        s.valueSizeMix(),
        s.clients(),
        d,
        s.targetOpsPerSecond(),
        s.seed());
  }
}
