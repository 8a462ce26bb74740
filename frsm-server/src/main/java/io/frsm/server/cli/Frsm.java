package io.frsm.server.cli;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;

/**
 * The {@code frsm} command.
 *
 * <pre>
 *   frsm local [--nodes N] [--dir D]        embedded ZooKeeper + N nodes (default 3) on loopback, until Ctrl-C
 *   frsm server --config frsm.yaml          one production node
 *   frsm cli --zookeeper H:P [--cluster C] get|create|cas|delete|fence|ring|leader ...
 *   frsm demo [--seconds 30] [--dir D]      a local cluster running the paper's workload
 * </pre>
 *
 * Exit codes: 0 success, 1 failure, 2 wrong command line.
 */
public final class Frsm {
  private Frsm() {}

  public static void main(String[] args) {
    quietLogging(args.length > 0 ? args[0] : "");
    System.exit(run(Arrays.asList(args), System.out, System.err));
  }

  /**
   * Interactive commands (demo, cli) print their own output; the library's INFO lines (connections
   * opening and closing as nodes stop) would bury it. A server keeps INFO. An explicit
   * java.util.logging configuration always wins.
   */
  private static void quietLogging(String command) {
    if (System.getProperty("java.util.logging.config.file") != null) {
      return;
    }
    java.util.logging.Level level =
        command.equals("server") || command.equals("local")
            ? java.util.logging.Level.INFO
            : java.util.logging.Level.SEVERE;
    java.util.logging.Logger root = java.util.logging.Logger.getLogger("");
    root.setLevel(level);
    for (java.util.logging.Handler h : root.getHandlers()) {
      h.setLevel(level);
    }
  }

  static int run(List<String> args, PrintStream out, PrintStream err) {
    if (args.isEmpty() || args.get(0).equals("help") || args.get(0).equals("--help")) {
      out.print(USAGE);
      return args.isEmpty() ? 2 : 0;
    }
    List<String> rest = args.subList(1, args.size());
    try {
      return switch (args.get(0)) {
        case "local" -> LocalCommand.run(rest, out);
        case "server" -> ServerCommand.run(rest, out);
        case "cli" -> CliCommand.run(rest, out);
        case "demo" -> DemoCommand.run(rest, out);
        default -> throw new Args.UsageException("unknown command '" + args.get(0) + "'");
      };
    } catch (Args.UsageException e) {
      err.println("frsm: " + e.getMessage());
      err.print(USAGE);
      return 2;
    } catch (Exception e) {
      err.println("frsm " + args.get(0) + " failed: " + e);
      return 1;
    }
  }

  static final String USAGE =
      """
      usage:
        frsm local [--nodes N] [--dir DIR]       ZooKeeper + an N-node cluster (default 3) on loopback (Ctrl-C stops)
        frsm server --config frsm.yaml           one node; FRSM_* environment variables override the file
        frsm cli --zookeeper HOST:PORT [--cluster ID] COMMAND
            get KEY | create KEY VALUE | cas KEY EPOCH TIMESTAMP VALUE
            delete KEY EPOCH TIMESTAMP | fence KEY | ring | leader KEY
        frsm demo [--seconds 30] [--dir DIR]     a local cluster running the paper's workload
      """;
}
