package io.frsm.transport;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Key;
import io.frsm.client.transport.WireDecodeException;
import io.frsm.consensus.core.HandOffShipment;
import io.frsm.consensus.core.InputBounds;
import io.frsm.transport.proto.HandOffChunk;
import io.frsm.transport.proto.HandOffEntries;
import io.frsm.transport.proto.HandOffEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * A hand-off shipment on the wire (docs/formats/streaming.md "Hand-off shipments"): cut into
 * checksummed {@link HandOffChunk}s by the stand-in, put together again by the successor ({@link
 * Assembly}), which refuses anything malformed. The chunks come from a peer: every field is checked
 * before it is trusted, and nothing a peer sends can make this code throw anything but {@link
 * WireDecodeException} or hold more than {@link #MAX_SHIPMENT_BYTES}.
 */
public final class HandOffShipments {
  private HandOffShipments() {}

  /**
   * Keys a shipment may carry at most: the core's written-keys bound (a term with more keys is not
   * handed off at all, docs/PROTOCOL.md "Hand-off instead of a scan").
   */
  public static final int MAX_ENTRIES = 1 << 20;

  /** Entry bytes a shipment may carry at most: what one assembly may hold in memory. */
  public static final long MAX_SHIPMENT_BYTES = 256L << 20;

  /**
   * The entry bytes a chunk aims at: well under a stream frame's limit, so that one chunk never
   * holds a connection's event loop for long.
   */
  public static final int CHUNK_TARGET_BYTES = 1 << 20;

  /** Entry bytes one chunk may carry at most (a single large value may exceed the target). */
  public static final int MAX_CHUNK_BYTES = io.frsm.transport.stream.StreamWire.MAX_CHUNK_BYTES;

  /**
   * {@code s} as chunks of about {@code targetBytes} of entries each (at least one chunk, the last
   * one marked).
   *
   * @throws IllegalArgumentException if one entry alone exceeds {@link #MAX_CHUNK_BYTES}, or the
   *     shipment {@link #MAX_ENTRIES} or {@link #MAX_SHIPMENT_BYTES} (the agent then hands the
   *     range over without a shipment: the successor scans)
   */
  public static List<HandOffChunk> chunks(HandOffShipment s, int targetBytes) {
    if (s.entries().size() > MAX_ENTRIES) {
      throw new IllegalArgumentException(
          "a shipment of " + s.entries().size() + " keys exceeds " + MAX_ENTRIES);
    }
    List<HandOffChunk> out = new ArrayList<>();
    HandOffEntries.Builder current = HandOffEntries.newBuilder().setCoversTerm(s.coversTerm());
    int currentBytes = 0;
    long total = 0;
    for (HandOffShipment.Entry e : s.entries()) {
      HandOffEntry.Builder entry = HandOffEntry.newBuilder().setKey(WireValues.key(e.key()));
      if (e.chosen() != null) {
        entry.setChosen(WireValues.acceptedValue(e.chosen()));
      }
      HandOffEntry built = entry.build();
      int size = built.getSerializedSize() + 8; // with its tag and length prefix, roughly
      if (size > MAX_CHUNK_BYTES) {
        throw new IllegalArgumentException("an entry of " + size + " bytes exceeds a chunk");
      }
      total += size;
      if (total > MAX_SHIPMENT_BYTES) {
        throw new IllegalArgumentException("a shipment exceeds " + MAX_SHIPMENT_BYTES + " bytes");
      }
      if (currentBytes > 0 && currentBytes + size > targetBytes) {
        out.add(chunk(s, out.size(), false, current.build()));
        current = HandOffEntries.newBuilder().setCoversTerm(s.coversTerm());
        currentBytes = 0;
      }
      current.addEntries(built);
      currentBytes += size;
    }
    out.add(chunk(s, out.size(), true, current.build()));
    return out;
  }

  private static HandOffChunk chunk(HandOffShipment s, int index, boolean last, HandOffEntries e) {
    ByteString bytes = e.toByteString();
    return HandOffChunk.newBuilder()
        .setRange(s.range())
        .setTerm(s.term())
        .setIndex(index)
        .setLast(last)
        .setEntries(bytes)
        .setCrc32C(crc32c(bytes))
        .build();
  }

  static int crc32c(ByteString bytes) {
    CRC32C crc = new CRC32C();
    crc.update(bytes.asReadOnlyByteBuffer());
    return (int) crc.getValue();
  }

  /**
   * One shipment being put together from its chunks, in order, on one connection. Not thread-safe.
   * Once it refused a chunk or completed, it takes no more.
   */
  public static final class Assembly {
    private int range = -1;
    private long term;
    private long coversTerm;
    private int nextIndex;
    private boolean done;
    private long bytes;
    private Key previous;
    private final List<HandOffShipment.Entry> entries = new ArrayList<>();

    /**
     * Takes the next chunk; returns the whole shipment when {@code c} is the last one, else null.
     *
     * @throws WireDecodeException if the chunk is out of order, of another range or term, fails its
     *     checksum, or any entry is malformed (keys out of order, a value not chosen, a number out
     *     of bounds), or the shipment grows beyond its limits; the assembly is then spent
     */
    public HandOffShipment add(HandOffChunk c) throws WireDecodeException {
      if (done) {
        throw new WireDecodeException("hand-off chunk after the shipment ended or was refused");
      }
      done = true; // until this chunk is taken whole
      if (c.getRange() < 0) {
        throw new WireDecodeException("hand-off range " + Integer.toUnsignedString(c.getRange()));
      }
      if (c.getTerm() < 1 || c.getTerm() > InputBounds.MAX_NUMBER) {
        throw new WireDecodeException("hand-off term " + Long.toUnsignedString(c.getTerm()));
      }
      if (nextIndex == 0) {
        range = c.getRange();
        term = c.getTerm();
      } else if (c.getRange() != range || c.getTerm() != term) {
        throw new WireDecodeException(
            "hand-off chunk of range "
                + c.getRange()
                + " term "
                + c.getTerm()
                + " inside the shipment of range "
                + range
                + " term "
                + term);
      }
      if (c.getIndex() != nextIndex) {
        throw new WireDecodeException(
            "hand-off chunk " + Integer.toUnsignedString(c.getIndex()) + ", expected " + nextIndex);
      }
      ByteString raw = c.getEntries();
      if (raw.size() > MAX_CHUNK_BYTES) {
        throw new WireDecodeException("hand-off chunk of " + raw.size() + " bytes");
      }
      bytes += raw.size();
      if (bytes > MAX_SHIPMENT_BYTES) {
        throw new WireDecodeException("hand-off shipment beyond " + MAX_SHIPMENT_BYTES + " bytes");
      }
      if (crc32c(raw) != c.getCrc32C()) {
        throw new WireDecodeException("hand-off chunk " + nextIndex + " fails its CRC32C");
      }
      HandOffEntries parsed;
      try {
        parsed = HandOffEntries.parseFrom(raw);
      } catch (InvalidProtocolBufferException e) {
        throw new WireDecodeException("hand-off chunk " + nextIndex + ": " + e.getMessage());
      }
      long covers = parsed.getCoversTerm();
      if (covers != 0 && covers != term - 1) {
        throw new WireDecodeException(
            "hand-off shipment of term " + term + " covering " + Long.toUnsignedString(covers));
      }
      if (nextIndex == 0) {
        coversTerm = covers;
      } else if (covers != coversTerm) {
        throw new WireDecodeException(
            "hand-off chunk covering " + covers + " inside a shipment covering " + coversTerm);
      }
      if (entries.size() + parsed.getEntriesCount() > MAX_ENTRIES) {
        throw new WireDecodeException("hand-off shipment beyond " + MAX_ENTRIES + " keys");
      }
      for (HandOffEntry e : parsed.getEntriesList()) {
        entries.add(entry(e));
      }
      nextIndex++;
      if (!c.getLast()) {
        done = false;
        return null;
      }
      return new HandOffShipment(range, term, entries, coversTerm);
    }

    private HandOffShipment.Entry entry(HandOffEntry e) throws WireDecodeException {
      String where = "hand-off entry " + entries.size();
      Key key = WireValues.key(e.getKey(), where);
      if (previous != null && previous.compareTo(key) >= 0) {
        throw new WireDecodeException(where + ": keys out of order");
      }
      previous = key;
      AcceptedValue chosen = WireValues.acceptedValueOrNone(e.hasChosen(), e.getChosen(), where);
      if (chosen != null && !chosen.chosen()) {
        throw new WireDecodeException(where + ": a shipped value must be chosen");
      }
      return new HandOffShipment.Entry(key, chosen);
    }
  }
}
