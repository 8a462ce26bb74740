package io.frsm.bench.experiment;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.Styler;

/** Small PNG line charts (XChart, headless): one series per system or configuration. */
final class Charts {
  private static final int WIDTH = 640;
  private static final int HEIGHT = 400;

  /** Series of (x, y) points in insertion order. */
  static final class Series {
    private final Map<String, List<double[]>> points = new LinkedHashMap<>();

    void add(String series, double x, double y) {
      points.computeIfAbsent(series, s -> new ArrayList<>()).add(new double[] {x, y});
    }

    boolean isEmpty() {
      return points.isEmpty();
    }
  }

  private Charts() {}

  /** Writes {@code file} (PNG); {@code logY} for latencies spanning orders of magnitude. */
  static Path line(
      Path file, String title, String xTitle, String yTitle, Series series, boolean logY)
      throws IOException {
    System.setProperty("java.awt.headless", "true");
    XYChart chart =
        new XYChartBuilder()
            .width(WIDTH)
            .height(HEIGHT)
            .title(title)
            .xAxisTitle(xTitle)
            .yAxisTitle(yTitle)
            .build();
    chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
    chart.getStyler().setLegendLayout(Styler.LegendLayout.Horizontal);
    chart.getStyler().setYAxisLogarithmic(logY && allPositive(series));
    chart.getStyler().setMarkerSize(4);
    chart.getStyler().setChartTitleFont(chart.getStyler().getChartTitleFont().deriveFont(13f));
    for (Map.Entry<String, List<double[]>> e : series.points.entrySet()) {
      List<double[]> pts = e.getValue();
      double[] x = new double[pts.size()];
      double[] y = new double[pts.size()];
      for (int i = 0; i < pts.size(); i++) {
        x[i] = pts.get(i)[0];
        y[i] = pts.get(i)[1];
      }
      chart.addSeries(e.getKey(), x, y);
    }
    Files.createDirectories(file.toAbsolutePath().getParent());
    BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
    return file;
  }

  private static boolean allPositive(Series series) {
    for (List<double[]> pts : series.points.values()) {
      for (double[] p : pts) {
        if (!(p[1] > 0)) {
          return false;
        }
      }
    }
    return true;
  }
}
