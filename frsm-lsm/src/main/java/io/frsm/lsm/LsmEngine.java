package io.frsm.lsm;

import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import io.frsm.cell.MergeConflictListener;
import io.frsm.lsm.commitlog.CommitLog;
import io.frsm.lsm.io.FileSystem;
import io.frsm.lsm.manifest.TableEntry;
import io.frsm.lsm.memtable.Memtable;
import io.frsm.lsm.sstable.CellIterator;
import io.frsm.lsm.sstable.KeyIterator;
import io.frsm.lsm.sstable.SSTableOptions;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The storage engine: one consolidated LSM tree whose cells carry the Paxos clock attribute.
 *
 * <p>Write path: a cell is appended to its commit-log stripe (group commit) and, once that stripe
 * synced, merged into the memtable that was active when it was appended. So reads only ever see
 * durable state — every reply the consensus layer builds from a read describes durable state.
 * Memtables are frozen and flushed (by size, age, heap pressure or commit-log size) in order; a
 * flushed memtable's commit-log segments are then discarded.
 *
 * <p>Read path: the merge join over the active memtable, the frozen ones and every live table
 * (bloom filters skip most). Data failing a checksum is quarantined at the finest grain known — the
 * damaged data block's token span, or the whole table if its footer, index or filter is damaged:
 * reads that may need it fail with {@link QuarantinedRangeException}, all others go on ({@link
 * #quarantinedIntervals()} lists what needs repair).
 *
 * <p>Thread-safe. Write futures complete on commit-log threads: keep callbacks short.
 */
public final class LsmEngine implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(LsmEngine.class.getName());
  static final long MAINTENANCE_PERIOD_MS = 1000;

  private final LsmConfig config;
  private final EngineState state;
  private final CommitLog commitLog;
  private final FlushPipeline flushes;
  private final CompactionManager compactions;
  private final PurgeCompactions purges;
  private final RangeHandOff handOff;
  private final ReplicaQuarantine quarantine;
  private final ReadPath reads;
  private final BackgroundScrub scrub;
  private final MemtableSwitch memtables;
  private final WritePath writes;
  private final EngineThreads threads;
  private final MaintenanceChecks maintenance;
  private final EngineShutdown shutdown;

  private LsmEngine(
      LsmConfig config,
      FileSystem fs,
      LongSupplier wallClockMillis,
      EngineState state,
      CommitLog commitLog,
      LsmMetrics metrics,
      MergeConflictListener conflicts,
      long firstMemtableId,
      MeterRegistry registry) {
    this.config = config;
    this.state = state;
    this.commitLog = commitLog;
    SSTableOptions tableOptions =
        new SSTableOptions(config.sstableBlockSizeBytes(), config.bloomBitsPerKey());
    this.threads = new EngineThreads(config.numberOfCompactionThreads());
    ImportRanges importing = new ImportRanges();
    FlushAndCompaction tableWork =
        new FlushAndCompaction(
            config,
            fs,
            state,
            commitLog,
            tableOptions,
            metrics,
            threads,
            wallClockMillis,
            importing);
    this.purges = tableWork.purges;
    this.compactions = tableWork.compactions;
    this.flushes = tableWork.flushes;
    this.memtables =
        new MemtableSwitch(
            state,
            commitLog,
            flushes,
            wallClockMillis,
            conflicts,
            threads.maintenance,
            firstMemtableId);
    this.writes = new WritePath(config, state, memtables, flushes, metrics);
    this.maintenance =
        new MaintenanceChecks(
            config, state, commitLog, flushes, memtables, compactions, purges, wallClockMillis);
    this.quarantine =
        new ReplicaQuarantine(
            fs,
            config.dataDirectory(),
            state,
            new TableSalvage(fs, state, tableOptions),
            compactions::maybeScheduleMinor);
    this.reads = new ReadPath(state, quarantine, conflicts);
    this.handOff =
        new RangeHandOff(
            state,
            reads,
            new TableTransfer(fs, state, tableOptions, importing),
            compactions::maybeScheduleMinor,
            wallClockMillis);
    this.scrub =
        new BackgroundScrub(
            new Scrubber(
                fs,
                config.dataDirectory(),
                state,
                config.scrubThroughputBytesPerSecond(),
                registry),
            config.scrubEnabled(),
            config.scrubStartDelay().toMillis());
    this.shutdown = new EngineShutdown(memtables, writes.stall(), threads, scrub, commitLog, state);
  }

  /** Opens (or creates) the engine in {@code config.dataDirectory()}, replaying the commit log. */
  public static LsmEngine open(LsmConfig config, FileSystem fs, MeterRegistry registry)
      throws IOException {
    return open(config, fs, registry, System::currentTimeMillis);
  }

  /**
   * As {@link #open(LsmConfig, FileSystem, MeterRegistry)} with an explicit wall clock (memtable
   * lifetime and the tombstone grace period are measured with it).
   */
  public static LsmEngine open(
      LsmConfig config, FileSystem fs, MeterRegistry registry, LongSupplier wallClockMillis)
      throws IOException {
    EngineRecovery.Recovered recovered =
        EngineRecovery.recover(config, fs, registry, wallClockMillis);
    EngineState state = recovered.state();
    LsmEngine engine =
        new LsmEngine(
            config,
            fs,
            wallClockMillis,
            state,
            recovered.commitLog(),
            recovered.metrics(),
            recovered.conflicts(),
            1,
            registry);
    if (engine.quarantine.loadFence()) {
      LOG.log(
          System.Logger.Level.ERROR,
          "this replica is fenced ({0}): the commit log lost acknowledged records; every key is"
              + " quarantined until all its ranges are repaired",
          config.dataDirectory().resolve(ReplicaFence.FILE_NAME));
    }
    engine.registerGauges(registry);
    if (!state.liveEntries().isEmpty()) {
      // Marks already in tables are counted nowhere: one purge compaction a grace period from now.
      // (Marks replayed into the memtable are counted when it is flushed.)
      engine.purges.marked(wallClockMillis.getAsLong());
    }
    engine.threads.maintenance.scheduleWithFixedDelay(
        engine.maintenance::tick,
        MAINTENANCE_PERIOD_MS,
        MAINTENANCE_PERIOD_MS,
        TimeUnit.MILLISECONDS);
    engine.compactions.maybeScheduleMinor();
    engine.scrub.start(engine.threads.scrub);
    return engine;
  }

  /**
   * Runs one whole scrub pass on the calling thread. REQUIRES: {@code scrubEnabled} is false (one
   * scrub at a time); for tests and tools.
   */
  void scrubPassNow() throws IOException {
    scrub.passNow();
  }

  /**
   * One step of the scrub on the calling thread: verifies the next run of data blocks of one table
   * (at most 256 KiB, or 1/16 s of the throttle if less), waiting for the throttle first; false
   * once the pass is complete (the next call starts a new one). REQUIRES: {@code scrubEnabled} is
   * false (one scrub at a time). For tests and tools, such as a benchmark that turns the scrub on
   * and off to measure its cost.
   */
  public boolean scrubStepNow() throws IOException {
    return scrub.stepNow();
  }

  /** Where the background scrub stands (bytes, tables and corrupt blocks, its position). */
  public ScrubStatus scrubStatus() {
    return scrub.status();
  }

  private void registerGauges(MeterRegistry registry) {
    Gauge.builder("frsm.lsm.memtable.bytes", this, e -> e.memtableBytes())
        .baseUnit("bytes")
        .register(registry);
    Gauge.builder("frsm.lsm.sstable.count", this, e -> e.state.peek().tables.size())
        .register(registry);
    Gauge.builder("frsm.lsm.sstable.quarantined", this, e -> e.state.peek().quarantined.size())
        .register(registry);
    Gauge.builder("frsm.lsm.quarantined.intervals", this, e -> e.quarantinedIntervals().size())
        .description("token intervals this replica cannot vouch for until repaired")
        .register(registry);
    Gauge.builder("frsm.lsm.flush.pending", this, e -> e.flushes.queued()).register(registry);
    Gauge.builder("frsm.lsm.writes.held", writes.stall(), WriteStall::waiting)
        .description("writes waiting for a flush to make room (lsm.maxFrozenMemtables)")
        .register(registry);
    io.micrometer.core.instrument.FunctionCounter.builder(
            "frsm.lsm.write.stalls", writes.stall(), WriteStall::stalls)
        .description("times writes began to wait for flushes (the disk did not keep up)")
        .register(registry);
    io.micrometer.core.instrument.FunctionCounter.builder(
            // Not "frsm.lsm.writes.held.total": Prometheus would name it frsm_lsm_writes_held,
            // the gauge's name, and refuse it.
            "frsm.lsm.writes.held.back", writes.stall(), WriteStall::heldBack)
        .description("writes that waited for a flush to make room")
        .register(registry);
    io.micrometer.core.instrument.FunctionCounter.builder(
            "frsm.lsm.compaction.purge.started", purges, PurgeCompactions::started)
        .description("major compactions started to drop purged deletes past their grace period")
        .register(registry);
  }

  // ---------------------------------------------------------------- writes

  /**
   * Durably merges {@code cell} into its key's state. The future completes once the cell is synced
   * in the commit log and visible to reads; exceptionally with an {@link IOException} if it could
   * not be made durable (then it may or may not survive a restart, like any unacknowledged write).
   * While {@code maxFrozenMemtables} memtables wait for their flush the write waits (it is not
   * admitted, not logged, not visible) until a flush makes room, behind every write that waited
   * before it ({@link #writesStalled}); it fails with an {@link IllegalStateException} if the
   * engine stops first.
   *
   * @throws OversizedCellException if the key or value exceeds the configured limits; nothing is
   *     written
   * @throws IllegalStateException if the engine is closed
   */
  public CompletableFuture<Void> write(Cell cell) {
    return writes.write(cell);
  }

  /**
   * As {@link #write(Cell)}, telling {@code done} instead of completing a future: {@code
   * done.written(attachment, null)} once the cell is synced and visible, or {@code
   * done.written(attachment, failure)} with what the future would have failed with. Called exactly
   * once, on a commit-log thread (on the calling thread if the commit log already failed the write
   * before this returned), never while the engine holds a lock. For the hot path: one callback
   * object serves every write, so a write costs no future and no dependent stage.
   *
   * @throws OversizedCellException if the key or value exceeds the configured limits; nothing is
   *     written and {@code done} is not called
   * @throws IllegalStateException if the engine is closed; {@code done} is not called
   */
  public <A> void write(Cell cell, A attachment, WriteCallback<? super A> done) {
    writes.write(cell, attachment, done);
  }

  /**
   * Merges {@code cell} into the active memtable <em>without</em> a commit-log record: visible to
   * reads on return, durable only once its memtable is flushed, lost by a crash before that. For
   * state a crash may lose without harm — the consensus layer's commits of chosen values, already
   * durable at a quorum of replicas, which are hints (docs/PROTOCOL.md "Commits are hints"). No
   * fsync, no thread hand-off: the returned future is already complete — unless flushes stall, then
   * it waits for room in line with the logged writes, as {@link #write} does.
   *
   * @throws OversizedCellException if the key or value exceeds the configured limits; nothing is
   *     written
   * @throws IllegalStateException if the engine is closed
   */
  public CompletableFuture<Void> writeUnlogged(Cell cell) {
    return writes.writeUnlogged(cell);
  }

  /**
   * As {@link #writeUnlogged(Cell)}, telling {@code done} instead of completing a future: on the
   * calling thread before this returns — unless flushes stall, then on the thread that lets the
   * write in once a flush made room (or that fails it when the engine stops).
   *
   * @throws OversizedCellException if the key or value exceeds the configured limits; nothing is
   *     written and {@code done} is not called
   * @throws IllegalStateException if the engine is closed; {@code done} is not called
   */
  public <A> void writeUnlogged(Cell cell, A attachment, WriteCallback<? super A> done) {
    writes.writeUnlogged(cell, attachment, done);
  }

  // ---------------------------------------------------------------- reads

  /**
   * The key's merged state, or null if this replica holds nothing for it.
   *
   * @throws CorruptionException if a table needed for the key failed its checksum (the damaged
   *     block, or the table if the damage is outside its data blocks, is quarantined at once)
   * @throws QuarantinedRangeException if a quarantined table, or a quarantined block of a live
   *     table, may hold the key
   */
  public Cell get(Key key) throws IOException {
    return reads.get(key);
  }

  /**
   * Every key with {@code fromToken <= token <= toToken}, in (token, key) order, merged. The caller
   * must close the iterator. Sees a consistent set of tables; memtables are read live.
   *
   * @throws QuarantinedRangeException if a quarantined table or block overlaps the range
   */
  public CellIterator scan(long fromToken, long toToken) throws IOException {
    return reads.scan(fromToken, toToken);
  }

  /**
   * The keys {@link #scan} would return cells of, in the same order and with the same failures,
   * without decoding the cells: for listings (range scans, membership settles), which need no
   * values. A key is listed whatever its merged cell says (tombstones, promises and purge marks
   * included), as by {@link #scan}. The caller must close the iterator.
   *
   * @throws QuarantinedRangeException if a quarantined table or block overlaps the range
   */
  public KeyIterator scanKeys(long fromToken, long toToken) throws IOException {
    return reads.scanKeys(fromToken, toToken);
  }

  // ---------------------------------------------------------------- flush and compaction

  /** Flushes everything written so far; completes when it is in SSTables. */
  public CompletableFuture<Void> flush() {
    return memtables.flushAsync(memtables.segregatedFlushes());
  }

  /**
   * Compacts every table that is not segregated into one; drops expired purged deletes. Also
   * started by itself once a purge mark is past the grace period ({@code
   * tombstoneCompactionInterval}).
   */
  public CompletableFuture<Void> compactMajor() {
    return compactions.compactMajor();
  }

  /**
   * Runs the periodic checks now: memtable lifetime, heap pressure, commit-log size, compaction.
   */
  public void runMaintenance() {
    maintenance.run();
  }

  /** Replaces the heap gauge the pressure check reads (tests simulate pressure with it). */
  void heapUsedFraction(java.util.function.DoubleSupplier gauge) {
    maintenance.heapUsedFraction(gauge);
  }

  // ---------------------------------------------------------------- segregation and transfer

  /**
   * While on, every flushed table is segregated: never compacted with other tables, so it can be
   * shipped as is to a recovering natural leader (docs/DESIGN.md "Ring").
   */
  public void setSegregatedFlushes(boolean on) {
    memtables.segregatedFlushes(on);
  }

  /**
   * The files of every segregated table, oldest first.
   *
   * @throws QuarantinedRangeException if a segregated table is quarantined, whole or in part:
   *     shipping the others would hand off less than this replica accepted, silently; the hand-off
   *     must fall back to the scan (docs/DESIGN.md "Ring")
   */
  public List<Path> segregatedTables() throws QuarantinedRangeException {
    return handOff.segregatedTables();
  }

  /** Clears the segregated flag of every table; they join compaction from now on. */
  public void releaseSegregated() throws IOException {
    handOff.releaseSegregated();
  }

  /**
   * Writes the merged state of every key with a token in [from, to] as SSTable files into {@code
   * targetDirectory}, for streaming to another node. Returns the files (none if the range is
   * empty).
   */
  public List<Path> exportRange(long fromToken, long toToken, Path targetDirectory)
      throws IOException {
    return handOff.exportRange(fromToken, toToken, targetDirectory);
  }

  /**
   * Imports SSTable files exported by another replica of the token range [from, to]: verifies them
   * block by block, keeps only chosen values and purge marks, and publishes all files at once.
   *
   * @throws CorruptionException if a file is damaged; nothing is imported
   * @throws IllegalArgumentException if a file holds a key outside the range; nothing is imported
   */
  public void importTables(List<Path> files, long fromToken, long toToken) throws IOException {
    handOff.importTables(files, fromToken, toToken);
  }

  /**
   * As {@link #importTables(List, long, long)} for a ring range: the files may hold only tokens in
   * {@code (fromExclusive, toInclusive]}, which wraps past {@link Long#MAX_VALUE} when {@code from
   * >= to} ({@code from == to}: the whole ring). All files are published at once or none.
   */
  public void importRingRange(List<Path> files, long fromTokenExclusive, long toTokenInclusive)
      throws IOException {
    handOff.importRingRange(files, fromTokenExclusive, toTokenInclusive);
  }

  /**
   * Ends the quarantine of table {@code generation} (0: the whole-replica fence a damaged commit
   * log left, see {@link #quarantinedIntervals()}) once this replica's state for its quarantined
   * intervals ({@link #quarantinedIntervals()}) was repaired from the other replicas. A table
   * quarantined whole is forgotten (its file stays in {@code corrupt/}); a table with quarantined
   * blocks is rewritten without them (every block that still verifies is kept) and replaced.
   *
   * <p>REQUIRES: the repair came first and the node did not vote on those keys meanwhile (see
   * docs/PROTOCOL.md "Corrupt storage": learner, settled, release, voter). Releasing early drops
   * state the replica may have promised on.
   *
   * @throws IllegalArgumentException if the table is not quarantined
   */
  public void releaseQuarantine(long generation) throws IOException {
    quarantine.release(generation);
  }

  /**
   * What this replica cannot vouch for now: every quarantined interval (blocks of live tables,
   * tables quarantined whole, and generation 0 over every token when the commit log lost
   * acknowledged records), ordered by table then token. The "needs repair" signal: each entry must
   * be repaired from the other replicas, then released with {@link #releaseQuarantine(long)}.
   */
  public List<QuarantinedInterval> quarantinedIntervals() {
    return quarantine.intervals();
  }

  // ---------------------------------------------------------------- introspection

  /**
   * Live tables, newest first (excludes tables quarantined whole; includes tables with quarantined
   * blocks, see {@link #quarantinedIntervals()}).
   */
  public List<TableEntry> tables() {
    List<TableEntry> out = new ArrayList<>();
    for (TableEntry t : state.liveEntries()) {
      if (!t.quarantined()) {
        out.add(t);
      }
    }
    return out;
  }

  /** Tables quarantined whole (see {@link #releaseQuarantine(long)}). */
  public List<TableEntry> quarantinedTables() {
    return quarantine.wholeTables();
  }

  public long memtableBytes() {
    EngineView v = state.peek();
    long bytes = v.active.heapBytes();
    for (Memtable m : v.frozen) {
      bytes += m.heapBytes();
    }
    return bytes;
  }

  /** Frozen memtables waiting for (or in) their flush. */
  public int pendingFlushes() {
    return flushes.queued();
  }

  /**
   * Whether writes wait now (or the next one would): {@code maxFrozenMemtables} memtables wait for
   * their flush, or writes that waited are not all let in yet. A caller that can refuse work (a
   * node refusing the writes it would coordinate) should while this holds, so that what waits stays
   * bounded. Cheap; any thread.
   */
  public boolean writesStalled() {
    return writes.stall().stalled();
  }

  public long commitLogBytes() {
    return commitLog.totalSizeBytes();
  }

  public LsmConfig config() {
    return config;
  }

  // ---------------------------------------------------------------- shutdown

  /**
   * Stops taking writes, flushes the memtables (so the next open replays nothing), waits for
   * running compactions, and releases every file and thread.
   */
  @Override
  public void close() {
    shutdown.close();
  }

  /**
   * Whether the engine still takes reads and writes: false once {@link #close()} or {@link #kill()}
   * began. Lets a caller tell "this engine is gone" apart from a failure of one request.
   */
  public boolean isOpen() {
    return !memtables.isClosed();
  }

  /**
   * Stops at once, as if the process died: no flush, pending work abandoned. Whatever the commit
   * log already synced survives (and is replayed by the next open). For fatal errors and crash
   * tests; {@link #close()} is the normal way to stop.
   */
  public void kill() {
    shutdown.kill();
  }
}
