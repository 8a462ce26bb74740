package io.frsm.server.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The node's Prometheus scrape endpoint: {@code GET /metrics} in the Prometheus text format, {@code
 * GET /health} answering 200 while the node serves ({@link #servingCheck}) and 503 otherwise. The
 * node's and its storage engine's meters register in {@link #registry()} (docs/OPERATIONS.md
 * "Metrics and health"); JVM meters are bound too, and the endpoint's own: the connections it holds
 * ({@code frsm.metrics.connections.open}) and those it closed on its own ({@code
 * frsm.metrics.connections.closed}).
 *
 * <p>No client can blind it: the HTTP server ({@link MetricsHttpServer}) is non-blocking with a
 * request deadline and a connection cap ({@link EndpointSettings}), and scrapes are formatted on a
 * thread of their own, so a health check is answered while scrapes run.
 *
 * <p>A meter whose Prometheus name another meter already took is not exported at all (Micrometer
 * refuses its registration and says so once, at WARNING, then only at debug). Each refusal is
 * logged here at WARNING and kept in {@link #registrationFailures()}, which a test of the whole
 * node holds empty: a meter the operator's dashboards expect must never vanish silently.
 */
public final class MetricsEndpoint implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(MetricsEndpoint.class.getName());

  /** Refusals kept for {@link #registrationFailures()}; more are logged, not kept. */
  private static final int FAILURES_KEPT = 64;

  private final PrometheusMeterRegistry registry;
  private final JvmGcMetrics gcMetrics;
  private final ExecutorService scrapes;
  private volatile MetricsHttpServer server;
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile boolean healthy = true;
  private volatile BooleanSupplier serving = () -> true;
  private final List<String> registrationFailures;

  private MetricsEndpoint(
      PrometheusMeterRegistry registry,
      JvmGcMetrics gcMetrics,
      ExecutorService scrapes,
      List<String> registrationFailures) {
    this.registry = registry;
    this.registrationFailures = registrationFailures;
    this.gcMetrics = gcMetrics;
    this.scrapes = scrapes;
  }

  /** Binds {@code address} (port 0 = ephemeral) with the default limits and no authentication. */
  public static MetricsEndpoint start(InetSocketAddress address) throws IOException {
    return start(EndpointSettings.defaults(address));
  }

  /** Binds {@code settings.address()} and starts serving. */
  public static MetricsEndpoint start(EndpointSettings settings) throws IOException {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    List<String> failures = new CopyOnWriteArrayList<>();
    registry
        .config()
        .onMeterRegistrationFailed(
            (id, reason) -> {
              String failure = id.getName() + " " + id.getTags() + ": " + reason;
              LOG.log(Level.WARNING, "meter not exported: {0}", failure);
              if (failures.size() < FAILURES_KEPT) {
                failures.add(failure);
              }
            });
    new JvmMemoryMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ClassLoaderMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    JvmGcMetrics gc = new JvmGcMetrics();
    gc.bindTo(registry);
    // One scrape at a time; the queue holds at most one waiting scrape per open connection.
    ExecutorService scrapes =
        new ThreadPoolExecutor(
            1,
            1,
            0,
            TimeUnit.MILLISECONDS,
            new LinkedBlockingQueue<>(),
            r -> {
              Thread t = new Thread(r, "frsm-metrics-scrape");
              t.setDaemon(true);
              return t;
            });
    MetricsEndpoint endpoint = new MetricsEndpoint(registry, gc, scrapes, failures);
    try {
      endpoint.server =
          MetricsHttpServer.start(
              settings,
              new EndpointRoutes(
                  endpoint::answersHealthy, registry::scrape, scrapes, settings.basicAuth()),
              closedConnections(registry));
      Gauge.builder(
              "frsm.metrics.connections.open", endpoint.server, MetricsHttpServer::openConnections)
          .description("connections the metrics endpoint holds open")
          .register(registry);
    } catch (IOException | RuntimeException e) {
      endpoint.closeResources();
      throw e;
    }
    return endpoint;
  }

  private static MetricsHttpServer.ConnectionEvents closedConnections(
      PrometheusMeterRegistry registry) {
    Counter overCap = closedCounter(registry, "over_cap");
    Counter requestTimeout = closedCounter(registry, "request_timeout");
    return new MetricsHttpServer.ConnectionEvents() {
      @Override
      public void refusedOverCap() {
        overCap.increment();
      }

      @Override
      public void closedForRequestTimeout() {
        requestTimeout.increment();
      }
    };
  }

  private static Counter closedCounter(PrometheusMeterRegistry registry, String reason) {
    return Counter.builder("frsm.metrics.connections.closed")
        .tag("reason", reason)
        .description("connections the metrics endpoint closed on its own")
        .register(registry);
  }

  public PrometheusMeterRegistry registry() {
    return registry;
  }

  /**
   * The meters the registry refused since the start (name, tags and Micrometer's reason; the first
   * {@value #FAILURES_KEPT}): none is exported. Empty when every meter is scraped.
   */
  public List<String> registrationFailures() {
    return List.copyOf(registrationFailures);
  }

  public InetSocketAddress address() {
    return server.address();
  }

  /**
   * While false, {@code /health} answers 503 whatever the serving check says: set it before a
   * graceful stop starts draining, so load balancers and orchestrators stop sending work first.
   */
  public void healthy(boolean value) {
    healthy = value;
  }

  /**
   * What {@code /health} asks on every request (cheap, any thread: it runs on the endpoint's event
   * loop): whether the node serves. Until set, only {@link #healthy} decides.
   */
  public void servingCheck(BooleanSupplier check) {
    serving = Objects.requireNonNull(check, "check");
  }

  private boolean answersHealthy() {
    return healthy && serving.getAsBoolean();
  }

  /** Closes every connection, stops serving and unbinds; idempotent. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    if (server != null) {
      server.close();
    }
    closeResources();
  }

  private void closeResources() {
    scrapes.shutdownNow();
    gcMetrics.close();
    registry.close();
  }
}
