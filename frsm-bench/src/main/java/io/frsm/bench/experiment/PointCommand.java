package io.frsm.bench.experiment;

import io.frsm.api.FrsmClient;
import io.frsm.bench.crsm.CrsmCluster;
import io.frsm.consensus.core.CoreStats;
import io.frsm.lsm.commitlog.GroupCommitWindow;
import io.frsm.server.cli.CommandLines;
import io.frsm.server.config.CorePlacement;
import io.frsm.server.local.LocalCluster;
import io.frsm.server.workload.WorkloadSpec;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code experiment point --system frsm|crsm [--batch N] [--transport-threads N] [--core-threads N]
 * [--core-on-loop auto|true|false] [--group-commit-window auto|MICROS] [--client embedded|thin]
 * --clients N --seconds S --keys N --data DIR}: one measured step in this JVM (frsm's client:
 * embedded at the key's leader, or the thin client over TCP), its result printed as one {@code
 * POINT key=value ...} line. The cores experiment runs it in child JVMs pinned to a set of CPUs.
 */
@Command(
    name = PointCommand.NAME,
    description = "One measured step in this JVM, printed as a POINT key=value ... line.")
final class PointCommand implements Callable<Integer> {
  static final String NAME = "point";
  static final String PREFIX = "POINT ";

  enum SystemKind {
    frsm,
    crsm
  }

  enum ClientKind {
    embedded,
    thin
  }

  enum KeyDistribution {
    zipf,
    uniform
  }

  @Option(
      names = "--system",
      required = true,
      description = "${COMPLETION-CANDIDATES}: frsm, or the cRSM baseline.")
  SystemKind system;

  @Option(
      names = "--batch",
      paramLabel = "N",
      defaultValue = "128",
      description = "The cRSM's batch size (default: ${DEFAULT-VALUE}).")
  int batch;

  @Option(
      names = "--transport-threads",
      paramLabel = "N",
      description =
          "Netty event loops per node (default: frsm's node default; the cRSM's: frsm's"
              + " default count).")
  Integer transportThreads;

  @Option(
      names = "--core-threads",
      paramLabel = "N",
      defaultValue = "0",
      description = "frsm's consensus core shards per node (default: 0, the node's choice).")
  int coreThreads;

  @Option(
      names = "--core-on-loop",
      paramLabel = "auto|true|false",
      defaultValue = "auto",
      converter = CorePlacementConverter.class,
      description = "frsm's consensus.coreOnTransportLoop (default: ${DEFAULT-VALUE}).")
  CorePlacement corePlacement;

  @Option(
      names = "--group-commit-window",
      paramLabel = "auto|MICROS",
      converter = ExperimentCommand.GroupCommitWindowConverter.class,
      description = "frsm's lsm.commitLogGroupCommitWindow (default: auto).")
  GroupCommitWindow groupCommitWindow = FrsmLocalCluster.Settings.DEFAULT.groupCommitWindow();

  @Option(
      names = "--client",
      defaultValue = "embedded",
      description =
          "${COMPLETION-CANDIDATES}: in-process at the key's leader, or frsm's thin"
              + " client over TCP (default: ${DEFAULT-VALUE}).")
  ClientKind client;

  @Option(
      names = "--security",
      paramLabel = "MODE",
      defaultValue = "TLS",
      description =
          "frsm: TLS (mutual TLS 1.3, as frsm server runs; default) or INSECURE (plaintext).")
  LocalCluster.Security security;

  @Option(names = "--clients", required = true, paramLabel = "N", description = "Client threads.")
  int clients;

  @Option(names = "--seconds", required = true, paramLabel = "S", description = "Measured seconds.")
  double seconds;

  @Option(
      names = "--warmup",
      paramLabel = "S",
      defaultValue = "1",
      description = "Unmeasured seconds before (default: ${DEFAULT-VALUE}).")
  double warmupSeconds;

  @Option(names = "--keys", required = true, paramLabel = "N", description = "Key count.")
  long keys;

  @Option(
      names = "--distribution",
      defaultValue = "zipf",
      description = "${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
  KeyDistribution distribution;

  @Option(
      names = "--data",
      required = true,
      paramLabel = "DIR",
      description = "The system's data directory (deleted at the end).")
  Path data;

  @Mixin CommandLines.HelpOption help;

  @Spec CommandSpec spec;

  private final PrintStream out;

  PointCommand(PrintStream out) {
    this.out = out;
  }

  /** {@code auto}, {@code true} or {@code false}, as {@code consensus.coreOnTransportLoop}. */
  static final class CorePlacementConverter implements ITypeConverter<CorePlacement> {
    @Override
    public CorePlacement convert(String value) {
      CorePlacement p = CorePlacement.parse(value);
      if (p == null) {
        throw new TypeConversionException("auto, true or false, was '" + value + "'");
      }
      return p;
    }
  }

  @Override
  public Integer call() throws Exception {
    if (client == ClientKind.thin && system != SystemKind.frsm) {
      throw new ParameterException(spec.commandLine(), "--client thin needs --system frsm");
    }
    WorkloadSpec paper;
    try {
      paper = WorkloadSpec.paper(keys, clients, millis(seconds));
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
    WorkloadSpec workload = distribution == KeyDistribution.uniform ? paper.uniform() : paper;
    Duration warmup = millis(warmupSeconds);
    String line;
    if (system == SystemKind.frsm) {
      FrsmLocalCluster frsm =
          FrsmLocalCluster.start(
              data,
              FrsmLocalCluster.Settings.DEFAULT
                  .transportThreads(transportThreads == null ? 0 : transportThreads)
                  .coreThreads(coreThreads)
                  .corePlacement(corePlacement)
                  .groupCommitWindow(groupCommitWindow),
              security);
      try (FrsmClient c =
              client == ClientKind.thin
                  ? frsm.client(FrsmLocalCluster.Access.THIN, 0)
                  : frsm.client();
          FrsmClient check = frsm.checkClient()) {
        Measurement.OnFrsm step =
            Measurement.run(
                frsm, c, check, new Measurement.Step(workload, warmup, "frsm", s -> {}));
        line =
            format(step.point())
                + modes(step.counted().core())
                + syncs(step.counted().groupCommits(), step.point());
      } finally {
        Systems.stop(frsm, data);
      }
    } else {
      CrsmSystem crsm =
          CrsmSystem.start(
              data,
              batch,
              transportThreads == null ? CrsmCluster.defaultTransportThreads() : transportThreads);
      try (FrsmClient c = crsm.client();
          FrsmClient check = crsm.checkClient()) {
        line =
            format(
                Measurement.run(c, check, new Measurement.Step(workload, warmup, "crsm", s -> {})));
      } finally {
        Systems.stop(crsm, data);
      }
    }
    out.println(line);
    return 0;
  }

  private static Duration millis(double seconds) {
    return Duration.ofMillis(Math.round(seconds * 1000));
  }

  /** How frsm's nodes served the measured step (the counter check's calls included). */
  private static String modes(CoreStats d) {
    return String.format(
        Locale.ROOT,
        " leader_only_reads=%d quorum_reads=%d warm_cas=%d cold_cas=%d"
            + " mismatches=%d leader_only_mismatches=%d",
        d.readsLeaderOnly(),
        d.readsQuorum() + d.readsMutatingQuorum(),
        d.casWarm(),
        d.casCold(),
        d.mismatches(),
        d.mismatchesLeaderOnly());
  }

  /**
   * The measured step's group commits: syncs per completed operation, records per sync, the share
   * of syncs that waited out a group-commit window, the records a window gathered and how long it
   * lasted, on average.
   */
  private static String syncs(FrsmLocalCluster.GroupCommits d, Point p) {
    double ops = p.result().totalOperations();
    return String.format(
        Locale.ROOT,
        " syncs_per_op=%.3f records_per_sync=%.2f windows_per_sync=%.2f gathered_per_window=%.2f"
            + " window_us=%.0f",
        d.syncs() / Math.max(1, ops),
        d.records() / (double) Math.max(1, d.syncs()),
        d.windows() / (double) Math.max(1, d.syncs()),
        d.gathered() / (double) Math.max(1, d.windows()),
        d.windowNanos() / 1e3 / Math.max(1, d.windows()));
  }

  static String format(Point p) {
    return String.format(
        Locale.ROOT,
        PREFIX
            + "ops=%.1f get_p50=%.1f get_p99=%.1f cas_p50=%.1f cas_p99=%.1f errors=%d"
            + " increments=%d lost=%d retries=%d cpu_us_per_op=%.1f cpus_busy=%.3f"
            + " alloc_bytes_per_op=%.0f",
        p.opsPerSecond(),
        p.getP50Micros(),
        p.getP99Micros(),
        p.casP50Micros(),
        p.casP99Micros(),
        p.errors(),
        p.counterIncrements(),
        p.lostOrDoubled().size(),
        p.safeRetries(),
        p.cpuMicrosPerOp(),
        p.cpusBusy(),
        p.allocatedBytesPerOp());
  }

  /** The key=value fields of a POINT line. */
  static Map<String, Double> parse(String line) {
    if (!line.startsWith(PREFIX)) {
      throw new IllegalArgumentException("not a POINT line: " + line);
    }
    Map<String, Double> fields = new HashMap<>();
    for (String kv : line.substring(PREFIX.length()).trim().split(" ")) {
      int eq = kv.indexOf('=');
      fields.put(kv.substring(0, eq), Double.parseDouble(kv.substring(eq + 1)));
    }
    return fields;
  }
}
