package io.frsm.bench;

import io.frsm.bench.experiment.ExperimentCommand;
import io.frsm.bench.quick.QuickWorkload;
import java.time.Duration;
import java.util.Arrays;

/**
 * Entry point of {@code frsm-bench.jar}.
 *
 * <pre>
 * java -jar frsm-bench/target/frsm-bench.jar quick [--seconds=10] [--threads=32] [--keys=100000]
 * java -jar frsm-bench/target/frsm-bench.jar jmh [JMH arguments]
 * java -jar frsm-bench/target/frsm-bench.jar experiment <name|all> [--quick] [--out DIR]
 * </pre>
 */
public final class Main {
  private Main() {}

  public static void main(String[] args) throws Exception {
    if (args.length == 0) {
      usage();
      System.exit(2);
    }
    String[] rest = Arrays.copyOfRange(args, 1, args.length);
    switch (args[0]) {
      case "quick" -> {
        QuickWorkload.Result r = QuickWorkload.run(quickSettings(rest), System.out);
        System.exit(r.errors() == 0 ? 0 : 1);
      }
      case "jmh" -> org.openjdk.jmh.Main.main(rest);
      case "experiment" -> System.exit(ExperimentCommand.main(rest, System.out));
      default -> {
        usage();
        System.exit(2);
      }
    }
  }

  private static QuickWorkload.Settings quickSettings(String[] args) {
    QuickWorkload.Settings d = QuickWorkload.Settings.paperLike();
    long seconds = d.duration().toSeconds();
    int threads = d.threads();
    int keys = d.keys();
    for (String a : args) {
      if (a.startsWith("--seconds=")) {
        seconds = Long.parseLong(a.substring("--seconds=".length()));
      } else if (a.startsWith("--threads=")) {
        threads = Integer.parseInt(a.substring("--threads=".length()));
      } else if (a.startsWith("--keys=")) {
        keys = Integer.parseInt(a.substring("--keys=".length()));
      } else {
        throw new IllegalArgumentException("unknown quick option " + a);
      }
    }
    return new QuickWorkload.Settings(Duration.ofSeconds(seconds), threads, keys, d.getFraction());
  }

  private static void usage() {
    System.err.println(
        "usage: java -jar frsm-bench.jar quick [--seconds=10] [--threads=32] [--keys=100000]\n"
            + "       java -jar frsm-bench.jar jmh [JMH arguments, e.g. -f 1 -wi 2 -i 3 -w 2s -r 3s]\n"
            + "       "
            + ExperimentCommand.usage().substring("usage: ".length()));
  }
}
