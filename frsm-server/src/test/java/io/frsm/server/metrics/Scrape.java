package io.frsm.server.metrics;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Test helper: GETs a metrics endpoint's {@code /metrics} and {@code /health} over HTTP, and reads
 * samples out of the Prometheus text format by metric name and labels, as a scraper would.
 */
public final class Scrape {
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  /** {@code name{label="value",...} number}; the labels part is optional. */
  private static final Pattern SAMPLE =
      Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)})?\\s+(\\S+)(?:\\s+\\S+)?$");

  private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"([^\"]*)\"");

  /** One sample line. */
  public record Sample(String name, Map<String, String> labels, double value) {}

  private final String text;
  private final List<Sample> samples;

  private Scrape(String text, List<Sample> samples) {
    this.text = text;
    this.samples = samples;
  }

  /** GETs {@code /metrics} from the endpoint at {@code address} (loopback port) and parses it. */
  public static Scrape of(InetSocketAddress address) throws IOException, InterruptedException {
    HttpResponse<String> r = get(address, "/metrics");
    if (r.statusCode() != 200) {
      throw new AssertionError("/metrics answered " + r.statusCode() + ": " + r.body());
    }
    return parse(r.body());
  }

  /** The status code of {@code GET /health}. */
  public static int health(InetSocketAddress address) throws IOException, InterruptedException {
    return get(address, "/health").statusCode();
  }

  public static HttpResponse<String> get(InetSocketAddress address, String path)
      throws IOException, InterruptedException {
    URI uri = URI.create("http://127.0.0.1:" + address.getPort() + path);
    return HTTP.send(
        HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  static Scrape parse(String text) {
    List<Sample> samples = new ArrayList<>();
    for (String line : text.split("\n")) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      Matcher m = SAMPLE.matcher(line.strip());
      if (!m.matches()) {
        throw new AssertionError("not a Prometheus sample line: " + line);
      }
      Map<String, String> labels = new LinkedHashMap<>();
      if (m.group(2) != null) {
        Matcher l = LABEL.matcher(m.group(2));
        while (l.find()) {
          labels.put(l.group(1), l.group(2));
        }
      }
      samples.add(new Sample(m.group(1), labels, Double.parseDouble(m.group(3))));
    }
    return new Scrape(text, samples);
  }

  /**
   * The samples of metric {@code name} whose labels include {@code labels} (given as name, value,
   * name, value, ...).
   */
  public List<Sample> samples(String name, String... labels) {
    Map<String, String> wanted = new LinkedHashMap<>();
    for (int i = 0; i + 1 < labels.length; i += 2) {
      wanted.put(labels[i], labels[i + 1]);
    }
    return samples.stream()
        .filter(s -> s.name().equals(name))
        .filter(s -> s.labels().entrySet().containsAll(wanted.entrySet()))
        .toList();
  }

  /**
   * The sum of the matching samples' values (e.g. over commit-log stripes).
   *
   * @throws AssertionError if no sample matches: the meter is not exposed
   */
  public double sum(String name, String... labels) {
    List<Sample> found = samples(name, labels);
    if (found.isEmpty()) {
      throw new AssertionError(
          "no sample " + name + " " + List.of(labels) + " in the scrape:\n" + text);
    }
    return found.stream().mapToDouble(Sample::value).sum();
  }

  public String text() {
    return text;
  }

  /**
   * The meters of {@code endpoint}'s registry that a scrape of it lacks, by Micrometer name: each
   * is looked for by its {@code # TYPE} line, under the name Prometheus gives it (a counter's with
   * or without its {@code _total} suffix). Empty when every meter is exported.
   */
  public static List<String> metersMissing(MetricsEndpoint endpoint)
      throws IOException, InterruptedException {
    String text = of(endpoint.address()).text();
    List<String> missing = new ArrayList<>();
    for (io.micrometer.core.instrument.Meter meter : endpoint.registry().getMeters()) {
      io.micrometer.core.instrument.Meter.Id id = meter.getId();
      String name =
          endpoint
              .registry()
              .config()
              .namingConvention()
              .name(id.getName(), id.getType(), id.getBaseUnit());
      String family = name.endsWith("_total") ? name.substring(0, name.length() - 6) : name;
      if (!text.contains("# TYPE " + family + " ")
          && !text.contains("# TYPE " + family + "_total ")) {
        missing.add(id.getName());
      }
    }
    return missing;
  }
}
