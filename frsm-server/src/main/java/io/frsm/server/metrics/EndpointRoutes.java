package io.frsm.server.metrics;

import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * What the endpoint answers: exactly {@code /metrics} and {@code /health} (a query string is
 * ignored; any other path is 404), by {@code GET} or {@code HEAD} only (405 otherwise), {@code
 * /metrics} only with the credentials when basic authentication is on (401). {@code /health} never
 * asks for credentials: it tells one bit, and the probes of orchestrators and the image's health
 * check must reach it without a secret. A request whose head the decoder refused is answered 431
 * (headers too large), 414 (request line too long) or 400.
 *
 * <p>{@code /health} is answered at once, on the caller's thread; {@code /metrics} on the scrape
 * executor, because a scrape formats every meter and must not hold up the event loop that answers
 * health checks.
 *
 * <p>Thread-safe if the health check and the scrape are.
 */
final class EndpointRoutes {
  private static final System.Logger LOG = System.getLogger(EndpointRoutes.class.getName());
  static final String METRICS = "/metrics";
  static final String HEALTH = "/health";

  private final BooleanSupplier health;
  private final Supplier<String> scrape;
  private final Executor scrapeExecutor;
  private final Optional<BasicAuth> basicAuth;

  EndpointRoutes(
      BooleanSupplier health,
      Supplier<String> scrape,
      Executor scrapeExecutor,
      Optional<BasicAuth> basicAuth) {
    this.health = health;
    this.scrape = scrape;
    this.scrapeExecutor = scrapeExecutor;
    this.basicAuth = basicAuth;
  }

  /** Answers {@code request} through {@code reply}, once, on this thread or the scrape executor. */
  void answer(HttpRequest request, Consumer<Answer> reply) {
    DecoderResult decoded = request.decoderResult();
    if (decoded.isFailure()) {
      reply.accept(refused(decoded.cause()));
      return;
    }
    String path = path(request.uri());
    if (!path.equals(METRICS) && !path.equals(HEALTH)) {
      reply.accept(Answer.text(HttpResponseStatus.NOT_FOUND, "not found: /metrics or /health\n"));
      return;
    }
    HttpMethod method = request.method();
    if (!method.equals(HttpMethod.GET) && !method.equals(HttpMethod.HEAD)) {
      reply.accept(
          Answer.text(HttpResponseStatus.METHOD_NOT_ALLOWED, "GET or HEAD only\n")
              .withHeader(HttpHeaderNames.ALLOW.toString(), "GET, HEAD"));
      return;
    }
    if (path.equals(HEALTH)) {
      boolean serving = health.getAsBoolean();
      reply.accept(
          serving
              ? Answer.text(HttpResponseStatus.OK, "ok\n")
              : Answer.text(HttpResponseStatus.SERVICE_UNAVAILABLE, "unavailable\n"));
      return;
    }
    if (basicAuth.isPresent()
        && !basicAuth.get().admits(request.headers().get(HttpHeaderNames.AUTHORIZATION))) {
      reply.accept(
          Answer.text(HttpResponseStatus.UNAUTHORIZED, "credentials required\n")
              .withHeader(
                  HttpHeaderNames.WWW_AUTHENTICATE.toString(),
                  "Basic realm=\"frsm metrics\", charset=\"UTF-8\""));
      return;
    }
    try {
      scrapeExecutor.execute(() -> reply.accept(scraped()));
    } catch (RejectedExecutionException closing) {
      reply.accept(Answer.text(HttpResponseStatus.SERVICE_UNAVAILABLE, "closing\n"));
    }
  }

  private Answer scraped() {
    String text;
    try {
      text = scrape.get();
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, "formatting the meters failed", e);
      return Answer.text(HttpResponseStatus.INTERNAL_SERVER_ERROR, "scrape failed\n");
    }
    return new Answer(
        HttpResponseStatus.OK,
        Answer.PROMETHEUS_TEXT,
        text.getBytes(StandardCharsets.UTF_8),
        Map.of());
  }

  private static Answer refused(Throwable cause) {
    if (cause instanceof TooLongHttpHeaderException) {
      return Answer.text(
          HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "request headers too large\n");
    }
    if (cause instanceof TooLongHttpLineException) {
      return Answer.text(HttpResponseStatus.REQUEST_URI_TOO_LONG, "request line too long\n");
    }
    return Answer.text(HttpResponseStatus.BAD_REQUEST, "bad request\n");
  }

  /** The path of a request target: what precedes the query string. */
  private static String path(String uri) {
    int query = uri.indexOf('?');
    return query < 0 ? uri : uri.substring(0, query);
  }
}
