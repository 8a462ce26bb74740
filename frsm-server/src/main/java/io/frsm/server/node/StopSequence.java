package io.frsm.server.node;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;

/**
 * The steps that stop a node, in order, each named. A step that fails is logged with its name and
 * the next one still runs: a node that cannot, say, deregister must still stop its transports and
 * close its engine. Not thread-safe: built and run by one thread.
 */
final class StopSequence {
  private static final System.Logger LOG = System.getLogger(FrsmNode.class.getName());

  /** One step; may throw anything an {@link AutoCloseable#close} may. */
  @FunctionalInterface
  interface Step {
    void run() throws Exception;
  }

  private record Named(String name, Step step) {}

  private final String owner;
  private final List<Named> steps = new ArrayList<>();

  /** {@code owner} names the stopping thing in log lines, e.g. "node 3". */
  StopSequence(String owner) {
    this.owner = owner;
  }

  /** Appends a step. */
  StopSequence then(String name, Step step) {
    steps.add(new Named(name, step));
    return this;
  }

  /** Appends a step that runs only if {@code condition} holds now. */
  StopSequence thenIf(boolean condition, String name, Step step) {
    return condition ? then(name, step) : this;
  }

  /** Appends a step that closes {@code closeable} unless it is null. */
  StopSequence thenClose(String name, AutoCloseable closeable) {
    return then(
        name,
        () -> {
          if (closeable != null) {
            closeable.close();
          }
        });
  }

  /** The steps' names, in order (for tests and logs). */
  List<String> names() {
    return steps.stream().map(Named::name).toList();
  }

  /**
   * Runs every step in order; returns the names of those that failed. An {@link Error} is not
   * caught: the JVM is in no state to go on.
   */
  List<String> run() {
    List<String> failed = new ArrayList<>();
    for (Named s : steps) {
      try {
        s.step().run();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        failed.add(s.name());
        LOG.log(Level.WARNING, owner + ": interrupted while stopping (" + s.name() + ")", e);
      } catch (Exception e) {
        failed.add(s.name());
        LOG.log(Level.WARNING, owner + ": error while stopping (" + s.name() + ")", e);
      }
    }
    return failed;
  }
}
