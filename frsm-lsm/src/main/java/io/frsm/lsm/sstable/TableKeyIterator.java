package io.frsm.lsm.sstable;

import io.frsm.cell.Key;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.NoSuchElementException;

/**
 * The keys of one table whose token lies in {@code [fromToken, toToken]}, in key order: {@link
 * SSTableReader#scanTokens}'s walk, yielding keys read by {@link DataBlock#key} instead of decoded
 * cells. Blocks come from the cache without being added to it, as for every scan; blocks read from
 * the file share one buffer.
 */
final class TableKeyIterator implements KeyIterator {
  private final SSTableReader reader;
  private final long fromToken;
  private final long toToken;
  private boolean seekInBlock = true; // the first block is entered at fromToken
  private int blockIndex;
  private DataBlock block;
  private ByteBuffer view; // the current block's view, reused for each of its entries
  // Blocks not in the cache are read into this array, grown to the longest block read: safe to
  // reuse because such a block is neither cached nor kept once the walk moves past it, and keys
  // are copied out of it.
  private byte[] buffer = new byte[0];
  private int entry;
  private Key next;
  private boolean done;

  TableKeyIterator(SSTableReader reader, long fromToken, long toToken) {
    this.reader = reader;
    this.fromToken = fromToken;
    this.toToken = toToken;
    if (fromToken > toToken) {
      done = true;
    } else {
      blockIndex = reader.index().ceilingBlock(fromToken, null);
    }
  }

  @Override
  public boolean hasNext() throws IOException {
    while (next == null && !done) {
      if (block == null) {
        if (blockIndex >= reader.index().blockCount()) {
          done = true;
          break;
        }
        int length = reader.blockLength(blockIndex);
        if (buffer.length < length) {
          buffer = new byte[length];
        }
        DataBlock loaded = reader.scanBlock(blockIndex, buffer);
        entry = seekInBlock ? loaded.ceiling(fromToken, null) : 0;
        seekInBlock = false;
        block = loaded;
        view = loaded.entryView();
      }
      if (entry >= block.count()) {
        block = null;
        view = null;
        blockIndex++;
        continue;
      }
      if (block.token(entry) > toToken) {
        done = true;
        break;
      }
      next = block.key(entry, view, reader.metadata().path(), reader.index().offset(blockIndex));
      entry++;
    }
    return next != null;
  }

  @Override
  public Key next() throws IOException {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    Key key = next;
    next = null;
    return key;
  }

  @Override
  public void close() {
    done = true;
    block = null;
    view = null;
    buffer = null;
    next = null;
  }
}
