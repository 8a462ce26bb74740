package io.frsm.server.metrics;

import io.netty.handler.codec.http.HttpResponseStatus;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * What the endpoint answers one request: plain bytes, so that an answer computed on the scrape
 * thread holds no buffer that could leak if its connection is gone by then ({@link
 * EndpointExchange} turns it into a response on the connection's event loop).
 *
 * @param headers further response headers (e.g. {@code Allow}, {@code WWW-Authenticate})
 */
record Answer(
    HttpResponseStatus status, String contentType, byte[] body, Map<String, String> headers) {
  static final String PLAIN_TEXT = "text/plain; charset=utf-8";

  /** The Prometheus text exposition format, version 0.0.4. */
  static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

  Answer {
    headers = Map.copyOf(headers);
  }

  static Answer text(HttpResponseStatus status, String body) {
    return new Answer(status, PLAIN_TEXT, body.getBytes(StandardCharsets.UTF_8), Map.of());
  }

  Answer withHeader(String name, String value) {
    Map<String, String> more = new java.util.LinkedHashMap<>(headers);
    more.put(name, value);
    return new Answer(status, contentType, body, more);
  }
}
