package io.frsm.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Sanity of the CPU figures only: nothing here depends on how fast or idle the machine is. */
class CpuClockTest {

  @Test
  void aSpinningThreadShowsUpInTheProcessCpu() throws Exception {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    assumeTrue(
        threads.isCurrentThreadCpuTimeSupported() && threads.isThreadCpuTimeEnabled(),
        "no thread CPU clock to spin by");
    CpuClock.Window window = CpuClock.ofThisJvm().start();
    // Spins until it has had 200 ms of CPU, however long a loaded machine takes to give it.
    Thread spinner =
        new Thread(
            () -> {
              long until = threads.getCurrentThreadCpuTime() + TimeUnit.MILLISECONDS.toNanos(200);
              while (threads.getCurrentThreadCpuTime() < until) {
                Thread.onSpinWait();
              }
            },
            "cpu-spinner");
    spinner.start();
    spinner.join();
    CpuClock.CpuUse use = window.stop();

    assumeTrue(use.known(), "this JVM does not report its process CPU time");
    assertTrue(use.cpuNanos() >= TimeUnit.MILLISECONDS.toNanos(100), use.toString());
    assertTrue(use.cpusBusy() > 0, use.toString());
    assertTrue(use.microsPerOp(1000) > 0, use.toString());
  }

  @Test
  void perOperationIsCpuOverOperationsAndBusyIsCpuOverWall() {
    AtomicLong cpu = new AtomicLong(1_000_000);
    AtomicLong wall = new AtomicLong(5_000_000);
    CpuClock.Window w = new CpuClock(cpu::get, wall::get).start();
    cpu.addAndGet(3_000_000); // 3 ms of CPU
    wall.addAndGet(2_000_000); // in 2 ms
    CpuClock.CpuUse use = w.stop();

    assertEquals(1.5, use.cpusBusy(), 1e-9);
    assertEquals(3.0, use.microsPerOp(1000), 1e-9);
  }

  @Test
  void noOperationsGiveNaNNotInfinity() {
    CpuClock.CpuUse use = new CpuClock.CpuUse(3_000_000, 2_000_000);

    assertTrue(Double.isNaN(use.microsPerOp(0)));
    assertTrue(Double.isNaN(new CpuClock.CpuUse(0, 0).cpusBusy()));
  }

  @Test
  void allocationPerOperationIsTheWindowsBytesOverOperations() {
    AtomicLong allocated = new AtomicLong(7_000_000);
    AtomicLong wall = new AtomicLong();
    CpuClock.Window w = new CpuClock(() -> 0, wall::get, allocated::get).start();
    allocated.addAndGet(4_096_000); // 4,096,000 bytes over 1,000 operations
    CpuClock.CpuUse use = w.stop();

    assertEquals(4_096_000, use.allocatedBytes());
    assertEquals(4_096.0, use.bytesPerOp(1000), 1e-9);
    assertTrue(Double.isNaN(use.bytesPerOp(0)));
    assertTrue(
        Double.isNaN(new CpuClock(() -> 0, wall::get).start().stop().bytesPerOp(10)),
        "no allocation reading: NaN, never 0");
  }

  @Test
  void thisJvmsAllocationIsSeen() {
    CpuClock.Window w = CpuClock.ofThisJvm().start();
    byte[][] kept = new byte[64][];
    for (int i = 0; i < kept.length; i++) {
      kept[i] = new byte[16_384];
    }
    CpuClock.CpuUse use = w.stop();
    assertEquals(16_384, kept[63].length);
    assertTrue(use.allocatedBytes() >= 64 * 16_384L, "allocated " + use.allocatedBytes());
  }

  @Test
  void anUnreportedCpuTimeGivesNaN() {
    AtomicLong wall = new AtomicLong();
    CpuClock.Window w = new CpuClock(() -> -1, wall::get).start();
    wall.addAndGet(1_000_000);
    CpuClock.CpuUse use = w.stop();

    assertTrue(!use.known());
    assertTrue(Double.isNaN(use.microsPerOp(10)));
    assertTrue(Double.isNaN(use.cpusBusy()));
  }
}
