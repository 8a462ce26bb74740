package io.frsm.server.metrics;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpVersion;
import java.util.Map;

/**
 * The metrics endpoint's one touch of a Netty buffer: an {@link Answer}'s plain bytes wrapped into
 * the HTTP response the codec writes, on the connection's event loop. Kept to this class so the
 * rest of the server holds no buffer (frsm-server's ByteBufConfinementTest allows this class alone,
 * as frsm-transport's frame codec is allowed there).
 */
final class AnswerResponses {
  private AnswerResponses() {}

  /** The response to one request, {@code Connection: close}; a HEAD's carries no body. */
  static FullHttpResponse of(Answer answer, boolean head) {
    FullHttpResponse response =
        new DefaultFullHttpResponse(
            HttpVersion.HTTP_1_1,
            answer.status(),
            head ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(answer.body()));
    response
        .headers()
        .set(HttpHeaderNames.CONTENT_TYPE, answer.contentType())
        .setInt(HttpHeaderNames.CONTENT_LENGTH, answer.body().length)
        .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    for (Map.Entry<String, String> header : answer.headers().entrySet()) {
      response.headers().set(header.getKey(), header.getValue());
    }
    return response;
  }
}
