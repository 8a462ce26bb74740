package io.frsm.lsm.manifest;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * An immutable snapshot of the set of live SSTables. Every change (flush, compaction, import,
 * quarantine, segregation release) produces a new snapshot with {@code sequence + 1}, written
 * atomically by {@link ManifestStore}: a crash at any point leaves either the old set or the new.
 */
public record Manifest(long sequence, long nextGeneration, List<TableEntry> tables) {

  public Manifest {
    tables = List.copyOf(tables);
    for (TableEntry t : tables) {
      if (t.generation() >= nextGeneration) {
        throw new IllegalArgumentException(
            "table generation " + t.generation() + " >= nextGeneration " + nextGeneration);
      }
    }
    if (tables.stream().map(TableEntry::generation).distinct().count() != tables.size()) {
      throw new IllegalArgumentException("duplicate table generation in " + tables);
    }
  }

  public static Manifest empty() {
    return new Manifest(0, 1, List.of());
  }

  /** Removes {@code removed} and adds {@code added}: one atomic step of the table set. */
  public Manifest apply(Collection<Long> removed, Collection<TableEntry> added) {
    Set<Long> gone = Set.copyOf(removed);
    for (long g : gone) {
      if (tables.stream().noneMatch(t -> t.generation() == g)) {
        throw new IllegalStateException("removing table " + g + " that is not live");
      }
    }
    List<TableEntry> next = new ArrayList<>();
    for (TableEntry t : tables) {
      if (!gone.contains(t.generation())) {
        next.add(t);
      }
    }
    long nextGen = nextGeneration;
    for (TableEntry t : added) {
      next.add(t);
      nextGen = Math.max(nextGen, t.generation() + 1);
    }
    return new Manifest(sequence + 1, nextGen, next);
  }

  /** Replaces entries by generation (e.g. to clear the segregated flag). */
  public Manifest replace(Collection<TableEntry> updated) {
    Set<Long> gens = updated.stream().map(TableEntry::generation).collect(Collectors.toSet());
    List<TableEntry> next = new ArrayList<>();
    for (TableEntry t : tables) {
      if (!gens.contains(t.generation())) {
        next.add(t);
      }
    }
    next.addAll(updated);
    return new Manifest(sequence + 1, nextGeneration, next);
  }
}
