package io.frsm.lsm;

import io.frsm.cell.Key;
import io.frsm.lsm.sstable.KeyIterator;
import java.io.IOException;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.PriorityQueue;

/**
 * A k-way merge of sorted key sources into one sorted stream with each key once: the keys {@link
 * MergingCellIterator} would return cells of, for listings. A key is listed if any source holds a
 * cell of it, whatever that cell says (a merged cell is never "nothing"), exactly as the cell merge
 * returns one cell for it. The cells are never merged, so merge conflicts between sources are not
 * reported from here; reads of the key report them. Not thread-safe.
 */
final class MergingKeyIterator implements KeyIterator {

  private static final class Head {
    final KeyIterator source;
    Key key;

    Head(KeyIterator source, Key key) {
      this.source = source;
      this.key = key;
    }
  }

  private final List<KeyIterator> sources;
  private final PriorityQueue<Head> heap = new PriorityQueue<>((a, b) -> a.key.compareTo(b.key));
  private final Runnable onClose;
  private boolean closed;

  MergingKeyIterator(List<KeyIterator> sources, Runnable onClose) throws IOException {
    this.sources = List.copyOf(sources);
    this.onClose = onClose;
    try {
      for (KeyIterator s : this.sources) {
        if (s.hasNext()) {
          heap.add(new Head(s, s.next()));
        }
      }
    } catch (IOException | RuntimeException e) {
      close();
      throw e;
    }
  }

  /** Adapts a memtable's key iterator (in memory, cannot fail). */
  static KeyIterator of(Iterator<Key> keys) {
    return new KeyIterator() {
      @Override
      public boolean hasNext() {
        return keys.hasNext();
      }

      @Override
      public Key next() {
        return keys.next();
      }

      @Override
      public void close() {}
    };
  }

  @Override
  public boolean hasNext() {
    return !heap.isEmpty();
  }

  @Override
  public Key next() throws IOException {
    Head head = heap.poll();
    if (head == null) {
      throw new NoSuchElementException();
    }
    Key result = head.key;
    advance(head);
    while (!heap.isEmpty() && heap.peek().key.equals(result)) {
      advance(heap.poll());
    }
    return result;
  }

  private void advance(Head head) throws IOException {
    if (head.source.hasNext()) {
      Key next = head.source.next();
      assert next.compareTo(head.key) > 0 : "source out of order at " + next;
      head.key = next;
      heap.add(head);
    }
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    for (KeyIterator s : sources) {
      s.close();
    }
    onClose.run();
  }
}
