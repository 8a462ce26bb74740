package io.frsm.bench.experiment;

import java.lang.management.ManagementFactory;
import java.util.function.LongSupplier;

/**
 * The CPU this JVM spends over a measured window, beside the window's wall time.
 *
 * <p>It reads the process CPU time ({@code
 * com.sun.management.OperatingSystemMXBean#getProcessCpuTime}: user plus system time of every
 * thread of the process), so it counts the whole JVM: in an experiment that is every node of the
 * system under test, their clients, the workload and counter-check threads, the JIT compilers and
 * the garbage collector. It does not count what the kernel does outside the process's account: the
 * softirq time it does not charge to the process (where much of loopback's packet processing runs,
 * depending on the kernel's IRQ time accounting), its flusher threads and the device behind an
 * fsync. On Linux the reading moves in clock ticks (10 ms): under 2% of a 0.7 s step on two CPUs.
 *
 * <p>Where the JVM does not offer that bean, or it answers -1, the use is unknown and every figure
 * derived from it is NaN — never an estimate.
 *
 * <p>It also reads the heap bytes every thread of the JVM allocated ({@code
 * com.sun.management.ThreadMXBean#getTotalThreadAllocatedBytes}, which keeps the bytes of threads
 * that ended): allocation per operation, the figure issue 26 asks to cut, which unlike CPU time
 * does not depend on what else the machine runs. It counts TLAB refills as HotSpot reports them, so
 * a window is exact to within a TLAB per allocating thread.
 */
final class CpuClock {
  private static final long UNKNOWN = -1;

  private final LongSupplier processCpuNanos;
  private final LongSupplier wallNanos;
  private final LongSupplier allocatedBytes;

  CpuClock(LongSupplier processCpuNanos, LongSupplier wallNanos) {
    this(processCpuNanos, wallNanos, () -> UNKNOWN);
  }

  CpuClock(LongSupplier processCpuNanos, LongSupplier wallNanos, LongSupplier allocatedBytes) {
    this.processCpuNanos = processCpuNanos;
    this.wallNanos = wallNanos;
    this.allocatedBytes = allocatedBytes;
  }

  /** This JVM's process CPU clock and {@link System#nanoTime}. */
  static CpuClock ofThisJvm() {
    LongSupplier allocated = () -> UNKNOWN;
    if (ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean threads
        && threads.isThreadAllocatedMemorySupported()
        && threads.isThreadAllocatedMemoryEnabled()) {
      allocated = threads::getTotalThreadAllocatedBytes;
    }
    if (ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      return new CpuClock(os::getProcessCpuTime, System::nanoTime, allocated);
    }
    return new CpuClock(() -> UNKNOWN, System::nanoTime, allocated);
  }

  /** Starts a window now; {@link Window#stop} ends it. */
  Window start() {
    return new Window(
        processCpuNanos.getAsLong(), wallNanos.getAsLong(), allocatedBytes.getAsLong());
  }

  /** A started window. */
  final class Window {
    private final long cpuAtStart;
    private final long wallAtStart;
    private final long allocatedAtStart;

    private Window(long cpuAtStart, long wallAtStart, long allocatedAtStart) {
      this.cpuAtStart = cpuAtStart;
      this.wallAtStart = wallAtStart;
      this.allocatedAtStart = allocatedAtStart;
    }

    CpuUse stop() {
      long cpu = processCpuNanos.getAsLong();
      long wall = wallNanos.getAsLong();
      long allocated = allocatedBytes.getAsLong();
      boolean known = cpuAtStart >= 0 && cpu >= 0;
      boolean allocationKnown = allocatedAtStart >= 0 && allocated >= allocatedAtStart;
      return new CpuUse(
          known ? cpu - cpuAtStart : UNKNOWN,
          wall - wallAtStart,
          allocationKnown ? allocated - allocatedAtStart : UNKNOWN);
    }
  }

  /**
   * CPU and wall time of one window.
   *
   * @param cpuNanos process CPU time spent in the window; negative when unknown
   * @param wallNanos the window's length
   * @param allocatedBytes heap bytes the JVM's threads allocated in the window; negative when
   *     unknown
   */
  record CpuUse(long cpuNanos, long wallNanos, long allocatedBytes) {
    CpuUse(long cpuNanos, long wallNanos) {
      this(cpuNanos, wallNanos, UNKNOWN);
    }

    /** Heap bytes allocated per operation completed in the window; NaN if unknown or none done. */
    double bytesPerOp(long operations) {
      return allocatedBytes >= 0 && operations > 0
          ? (double) allocatedBytes / operations
          : Double.NaN;
    }

    boolean known() {
      return cpuNanos >= 0;
    }

    /** CPU microseconds per operation completed in the window; NaN if unknown or none done. */
    double microsPerOp(long operations) {
      return known() && operations > 0 ? cpuNanos / 1e3 / operations : Double.NaN;
    }

    /** How many CPUs were busy on average: CPU time over wall time; NaN if unknown. */
    double cpusBusy() {
      return known() && wallNanos > 0 ? (double) cpuNanos / wallNanos : Double.NaN;
    }
  }
}
