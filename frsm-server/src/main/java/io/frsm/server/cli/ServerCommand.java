package io.frsm.server.cli;

import io.frsm.server.config.ConfigLoader;
import io.frsm.server.config.FrsmConfig;
import io.frsm.server.config.ServerKeys;
import io.frsm.server.metrics.EndpointSettings;
import io.frsm.server.metrics.MetricsEndpoint;
import io.frsm.server.node.FrsmNode;
import io.frsm.server.node.FrsmNodeBuilder;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code frsm server --config frsm.yaml}: one production node until SIGTERM, with its Prometheus
 * endpoint when {@code metrics.port} is not 0. Exits 143 after SIGTERM (128 + 15, the JVM's status
 * for a stop by that signal, once the graceful stop in its shutdown hook ended), and {@link
 * #EXIT_FATAL} once the node stopped serving on a fatal error (unless {@code
 * server.exitOnFatalError} is false), so that a supervisor restarts it (docs/OPERATIONS.md "Failure
 * policy").
 */
@Command(
    name = "server",
    description = {
      "One production node, until SIGTERM.",
      "FRSM_* environment variables override the file (docs/OPERATIONS.md)."
    })
final class ServerCommand implements Callable<Integer> {
  /** The exit status after a fatal error of the node (EX_SOFTWARE of sysexits.h). */
  static final int EXIT_FATAL = 70;

  @Option(
      names = "--config",
      required = true,
      paramLabel = "FILE",
      description = "The node's YAML configuration (bin/frsm: default $FRSM_CONFIG).")
  Path config;

  private final PrintStream out;

  ServerCommand(PrintStream out) {
    this.out = out;
  }

  @Override
  public Integer call() throws Exception {
    FrsmConfig loaded = ConfigLoader.load(config, configEnvironment(System.getenv()));
    Server server = Server.create(loaded);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(StopAwareLogManager.keepingLogsOpen(server::close), "frsm-server-shutdown"));
    server.start(out);
    server.awaitStopped();
    Throwable fatal = server.fatalError();
    if (fatal != null) {
      out.println("frsm node " + loaded.nodeId() + " stopped on a fatal error: " + fatal);
      return EXIT_FATAL; // Frsm.main exits with it; the shutdown hook closes what is left
    }
    return 0;
  }

  /**
   * The environment the config loader reads: all of it but {@link CliLogging#LEVEL_VARIABLE}, which
   * the command reads itself (the loader refuses an {@code FRSM_*} variable that is not a config
   * key).
   */
  static Map<String, String> configEnvironment(Map<String, String> environment) {
    Map<String, String> forConfig = new HashMap<>(environment);
    forConfig.remove(CliLogging.LEVEL_VARIABLE);
    return forConfig;
  }

  /**
   * One node as {@code frsm server} runs it: the node a config describes, and its metrics endpoint
   * (null when {@code metrics.port} is 0), whose registry holds every meter of the node and its
   * engine and whose {@code /health} follows {@link FrsmNode#serving()}. {@link #close()} is the
   * graceful stop SIGTERM triggers.
   */
  static final class Server implements AutoCloseable {
    private final FrsmConfig config;
    private final MetricsEndpoint metrics;
    private final FrsmNode node;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final AtomicReference<Throwable> fatalError;

    private Server(
        FrsmConfig config,
        MetricsEndpoint metrics,
        FrsmNode node,
        AtomicReference<Throwable> fatalError) {
      this.config = config;
      this.metrics = metrics;
      this.node = node;
      this.fatalError = fatalError;
    }

    /**
     * Binds the metrics endpoint on {@code metrics.bindAddress} (loopback by default) and builds
     * the node; nothing runs until {@link #start}.
     */
    static Server create(FrsmConfig config) throws IOException {
      MetricsEndpoint metrics =
          config.metricsPort() == 0
              ? null
              : MetricsEndpoint.start(EndpointSettings.fromConfig(config));
      try {
        AtomicReference<Throwable> fatalError = new AtomicReference<>();
        AtomicReference<Server> server = new AtomicReference<>();
        Consumer<Throwable> onFatal =
            error -> {
              fatalError.compareAndSet(null, error);
              if (config.get(ServerKeys.EXIT_ON_FATAL_ERROR)) {
                server.get().stopped.countDown(); // call() returns EXIT_FATAL
              }
            };
        FrsmNode node = ServerCommand.node(config, metrics, onFatal);
        if (metrics != null) {
          metrics.servingCheck(node::serving);
        }
        server.set(new Server(config, metrics, node, fatalError));
        return server.get();
      } catch (RuntimeException e) {
        if (metrics != null) {
          metrics.close();
        }
        throw e;
      }
    }

    /** Starts the node (returns once it registered in ZooKeeper) and prints where it listens. */
    void start(PrintStream out) throws IOException {
      node.start();
      out.println(
          "frsm node "
              + config.nodeId()
              + " of cluster '"
              + config.clusterId()
              + "' started: peer "
              + HostPort.of(node.peerAddress())
              + ", client "
              + HostPort.of(node.clientAddress())
              + (metrics == null ? "" : ", metrics " + HostPort.of(metrics.address())));
    }

    FrsmNode node() {
      return node;
    }

    /** The bound metrics endpoint, or null when {@code metrics.port} is 0. */
    InetSocketAddress metricsAddress() {
      return metrics == null ? null : metrics.address();
    }

    /**
     * Waits until {@link #close()} ran, or the node stopped on a fatal error and {@code
     * server.exitOnFatalError} is true.
     */
    void awaitStopped() throws InterruptedException {
      stopped.await();
    }

    /** The error the node stopped serving on, or null. */
    Throwable fatalError() {
      return fatalError.get();
    }

    /**
     * Graceful stop: {@code /health} turns 503 first (so orchestrators stop routing here), then the
     * node drains and stops, then the endpoint closes.
     */
    @Override
    public void close() {
      if (!closed.compareAndSet(false, true)) {
        return;
      }
      try {
        if (metrics != null) {
          metrics.healthy(false);
        }
        node.close();
      } finally {
        if (metrics != null) {
          metrics.close();
        }
        stopped.countDown();
      }
    }
  }

  /** The node a config describes, its meters on the endpoint's registry if there is one. */
  static FrsmNode node(FrsmConfig config, MetricsEndpoint metrics, Consumer<Throwable> onFatal) {
    FrsmNodeBuilder b = FrsmNode.builder().config(config).onFatalError(onFatal);
    if (metrics != null) {
      b.meterRegistry(metrics.registry());
    }
    return b.build();
  }
}
