package io.frsm.bench.experiment;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** An experiment's result rows: printed as an aligned table, written as CSV and JSON. */
final class ResultTable {
  private final List<String> columns;
  private final List<List<Object>> rows = new ArrayList<>();

  ResultTable(String... columns) {
    this.columns = List.of(columns);
  }

  void add(Object... cells) {
    if (cells.length != columns.size()) {
      throw new IllegalArgumentException(
          "row has " + cells.length + " cells, table has " + columns.size() + " columns");
    }
    rows.add(List.of(cells));
  }

  List<String> columns() {
    return columns;
  }

  List<List<Object>> rows() {
    return rows;
  }

  int rowCount() {
    return rows.size();
  }

  private static String text(Object cell) {
    if (cell instanceof Double d) {
      double a = Math.abs(d);
      return a == 0 || a >= 100
          ? String.format(Locale.ROOT, "%.0f", d)
          : a >= 1 ? String.format(Locale.ROOT, "%.2f", d) : String.format(Locale.ROOT, "%.3f", d);
    }
    return String.valueOf(cell);
  }

  String render() {
    int[] width = new int[columns.size()];
    for (int c = 0; c < columns.size(); c++) {
      width[c] = columns.get(c).length();
      for (List<Object> r : rows) {
        width[c] = Math.max(width[c], text(r.get(c)).length());
      }
    }
    StringBuilder sb = new StringBuilder();
    line(sb, columns, width);
    StringBuilder rule = new StringBuilder();
    for (int w : width) {
      rule.append("-".repeat(w)).append("  ");
    }
    sb.append(rule.toString().stripTrailing()).append('\n');
    for (List<Object> r : rows) {
      line(sb, r, width);
    }
    return sb.toString();
  }

  /** The rows as a Markdown table (for docs/BENCHMARKS.md). */
  String markdown() {
    StringBuilder sb = new StringBuilder("| " + String.join(" | ", columns) + " |\n|");
    sb.append(" --- |".repeat(columns.size())).append('\n');
    for (List<Object> r : rows) {
      sb.append('|');
      for (Object cell : r) {
        sb.append(' ').append(text(cell)).append(" |");
      }
      sb.append('\n');
    }
    return sb.toString();
  }

  private static void line(StringBuilder sb, List<?> cells, int[] width) {
    StringBuilder l = new StringBuilder();
    for (int c = 0; c < cells.size(); c++) {
      String t = text(cells.get(c));
      boolean numeric = cells.get(c) instanceof Number;
      l.append(
          numeric ? " ".repeat(width[c] - t.length()) + t : t + " ".repeat(width[c] - t.length()));
      l.append("  ");
    }
    sb.append(l.toString().stripTrailing()).append('\n');
  }

  String csv() {
    StringBuilder sb = new StringBuilder(String.join(",", columns)).append('\n');
    for (List<Object> r : rows) {
      List<String> cells = new ArrayList<>();
      for (Object cell : r) {
        String t = cell instanceof Double d ? String.format(Locale.ROOT, "%.3f", d) : text(cell);
        cells.add(t.contains(",") || t.contains("\"") ? "\"" + t.replace("\"", "\"\"") + "\"" : t);
      }
      sb.append(String.join(",", cells)).append('\n');
    }
    return sb.toString();
  }

  String json() {
    StringBuilder sb = new StringBuilder("[");
    for (int i = 0; i < rows.size(); i++) {
      sb.append(i == 0 ? "\n  {" : ",\n  {");
      List<Object> r = rows.get(i);
      for (int c = 0; c < columns.size(); c++) {
        if (c > 0) {
          sb.append(", ");
        }
        sb.append(quote(columns.get(c))).append(": ");
        Object cell = r.get(c);
        if (cell instanceof Double d) {
          sb.append(Double.isFinite(d) ? String.format(Locale.ROOT, "%.3f", d) : "null");
        } else if (cell instanceof Number || cell instanceof Boolean) {
          sb.append(cell);
        } else {
          sb.append(quote(String.valueOf(cell)));
        }
      }
      sb.append('}');
    }
    return sb.append("\n]\n").toString();
  }

  static String quote(String s) {
    StringBuilder sb = new StringBuilder("\"");
    for (char ch : s.toCharArray()) {
      switch (ch) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        default -> {
          if (ch < 0x20) {
            sb.append(String.format(Locale.ROOT, "\\u%04x", (int) ch));
          } else {
            sb.append(ch);
          }
        }
      }
    }
    return sb.append('"').toString();
  }
}
