package io.frsm.lsm;

import io.frsm.cell.Cell;
import io.frsm.cell.CellMerge;
import io.frsm.cell.Key;
import io.frsm.cell.MergeConflictListener;
import io.frsm.lsm.manifest.TableEntry;
import io.frsm.lsm.manifest.TokenInterval;
import io.frsm.lsm.memtable.Memtable;
import io.frsm.lsm.sstable.CellIterator;
import io.frsm.lsm.sstable.KeyIterator;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The engine's reads: the merge join over the active memtable, the frozen ones and every live table
 * (bloom filters skip most). A read that may need quarantined data fails with {@link
 * QuarantinedRangeException}; a read that hits a checksum failure quarantines what it read first
 * ({@link EngineState#quarantine}).
 */
final class ReadPath {
  private final EngineState state;
  private final ReplicaQuarantine quarantine;
  private final MergeConflictListener conflicts;

  ReadPath(EngineState state, ReplicaQuarantine quarantine, MergeConflictListener conflicts) {
    this.state = state;
    this.quarantine = quarantine;
    this.conflicts = conflicts;
  }

  /** See {@link LsmEngine#get(Key)}. */
  Cell get(Key key) throws IOException {
    if (quarantine.replicaFenced()) {
      throw QuarantinedRangeException.replicaFenced(key.toString());
    }
    EngineView view = state.acquire();
    try {
      QuarantinedTable q = view.quarantinedHolding(key);
      if (q != null) {
        throw new QuarantinedRangeException(q.entry, key.toString());
      }
      Cell result = view.active.get(key);
      for (Memtable m : view.frozen) {
        result = mergeNullable(result, m.get(key));
      }
      for (TableHandle t : view.tables) {
        TableEntry entry = t.entry();
        if (!entry.coversToken(key.token())) {
          continue;
        }
        TokenInterval fenced = entry.quarantinedIntervalHolding(key.token());
        if (fenced != null && t.reader().mightContain(key)) {
          throw new QuarantinedRangeException(entry, fenced, key.toString());
        }
        Cell c;
        try {
          c = t.reader().get(key);
        } catch (CorruptionException e) {
          state.quarantine(t, e);
          throw e;
        }
        result = mergeNullable(result, c);
      }
      return result;
    } finally {
      view.release();
    }
  }

  private Cell mergeNullable(Cell a, Cell b) {
    if (a == null) {
      return b;
    }
    return b == null ? a : CellMerge.merge(a, b, conflicts);
  }

  /** See {@link LsmEngine#scan(long, long)}. */
  CellIterator scan(long fromToken, long toToken) throws IOException {
    checkScannable(fromToken, toToken);
    EngineView view = state.acquire();
    List<CellIterator> sources = new ArrayList<>();
    try {
      checkNotFenced(view, fromToken, toToken);
      Key from = Key.lowestWithToken(fromToken);
      Key to = toToken == Long.MAX_VALUE ? null : Key.lowestWithToken(toToken + 1);
      sources.add(MergingCellIterator.of(view.active.iterator(from, to)));
      for (Memtable m : view.frozen) {
        sources.add(MergingCellIterator.of(m.iterator(from, to)));
      }
      for (TableHandle t : view.tables) {
        if (t.entry().overlapsTokens(fromToken, toToken)) {
          sources.add(new QuarantiningIterator(t.reader().scanTokens(fromToken, toToken), t));
        }
      }
    } catch (IOException | RuntimeException e) {
      for (CellIterator s : sources) {
        s.close();
      }
      view.release();
      throw e;
    }
    // From here the iterator owns the sources and the view: if its first reads fail, it closes
    // them itself, once.
    return new MergingCellIterator(sources, conflicts, view::release);
  }

  /**
   * See {@link LsmEngine#scanKeys(long, long)}: {@link #scan}'s keys from the same sources, behind
   * the same fence checks, read without decoding the cells (tables) or reading them (memtables).
   */
  KeyIterator scanKeys(long fromToken, long toToken) throws IOException {
    checkScannable(fromToken, toToken);
    EngineView view = state.acquire();
    List<KeyIterator> sources = new ArrayList<>();
    try {
      checkNotFenced(view, fromToken, toToken);
      Key from = Key.lowestWithToken(fromToken);
      Key to = toToken == Long.MAX_VALUE ? null : Key.lowestWithToken(toToken + 1);
      sources.add(MergingKeyIterator.of(view.active.keys(from, to)));
      for (Memtable m : view.frozen) {
        sources.add(MergingKeyIterator.of(m.keys(from, to)));
      }
      for (TableHandle t : view.tables) {
        if (t.entry().overlapsTokens(fromToken, toToken)) {
          sources.add(new QuarantiningKeyIterator(t.reader().scanKeyTokens(fromToken, toToken), t));
        }
      }
    } catch (IOException | RuntimeException e) {
      for (KeyIterator s : sources) {
        s.close();
      }
      view.release();
      throw e;
    }
    // As in scan: the iterator owns the sources and the view from here.
    return new MergingKeyIterator(sources, view::release);
  }

  private void checkScannable(long fromToken, long toToken) throws QuarantinedRangeException {
    if (fromToken > toToken) {
      throw new IllegalArgumentException("fromToken " + fromToken + " > toToken " + toToken);
    }
    if (quarantine.replicaFenced()) {
      throw QuarantinedRangeException.replicaFenced("tokens [" + fromToken + ", " + toToken + "]");
    }
  }

  /** A scan of the tokens fails whole if a quarantined table or block overlaps them. */
  private static void checkNotFenced(EngineView view, long fromToken, long toToken)
      throws QuarantinedRangeException {
    for (QuarantinedTable q : view.quarantined) {
      if (q.overlaps(fromToken, toToken)) {
        throw new QuarantinedRangeException(q.entry, "tokens [" + fromToken + ", " + toToken + "]");
      }
    }
    for (TableHandle t : view.tables) {
      TableEntry entry = t.entry();
      TokenInterval fenced = entry.quarantinedIntervalOverlapping(fromToken, toToken);
      if (fenced != null) {
        throw new QuarantinedRangeException(
            entry, fenced, "tokens [" + fromToken + ", " + toToken + "]");
      }
    }
  }

  /** {@link QuarantiningIterator} for keys. */
  private final class QuarantiningKeyIterator implements KeyIterator {
    private final KeyIterator delegate;
    private final TableHandle table;

    QuarantiningKeyIterator(KeyIterator delegate, TableHandle table) {
      this.delegate = delegate;
      this.table = table;
    }

    @Override
    public boolean hasNext() throws IOException {
      try {
        return delegate.hasNext();
      } catch (CorruptionException e) {
        state.quarantine(table, e);
        throw e;
      }
    }

    @Override
    public Key next() throws IOException {
      try {
        return delegate.next();
      } catch (CorruptionException e) {
        state.quarantine(table, e);
        throw e;
      }
    }

    @Override
    public void close() {
      delegate.close();
    }
  }

  /** Quarantines its table when reading it hits a checksum failure. */
  private final class QuarantiningIterator implements CellIterator {
    private final CellIterator delegate;
    private final TableHandle table;

    QuarantiningIterator(CellIterator delegate, TableHandle table) {
      this.delegate = delegate;
      this.table = table;
    }

    @Override
    public boolean hasNext() throws IOException {
      try {
        return delegate.hasNext();
      } catch (CorruptionException e) {
        state.quarantine(table, e);
        throw e;
      }
    }

    @Override
    public Cell next() throws IOException {
      try {
        return delegate.next();
      } catch (CorruptionException e) {
        state.quarantine(table, e);
        throw e;
      }
    }

    @Override
    public void close() {
      delegate.close();
    }
  }
}
