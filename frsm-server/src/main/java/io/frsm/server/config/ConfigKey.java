package io.frsm.server.config;

import io.frsm.client.transport.TransportConfig;
import io.frsm.lsm.LsmConfig;
import java.util.Locale;
import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * One setting of a node, declared once: its key in the file ({@code consensus.clockDriftPpm}), the
 * type and unit of its values, its default, its bounds, the {@code FrsmNodeBuilder} option that
 * sets it, and a line of documentation. The file ({@link ConfigLoader}), its {@code FRSM_*}
 * environment variables and the builder all set keys of {@link FrsmConfig}, whose {@link
 * FrsmConfig.Builder#build()} checks every value against its key ({@link ConfigRules}).
 *
 * <p>The keys of the storage engine ({@code lsm.*}) and of most of the transport ({@code
 * transport.*}) are settings of {@link LsmConfig} and {@link TransportConfig}: their key maps the
 * value onto that config's builder and takes its default from there, so the engine and the
 * transport keep owning their defaults.
 *
 * <p>Immutable; the declaring methods return a new key.
 *
 * @param <T> the type of the values: what {@link FrsmConfig#get} returns and the builder takes
 */
public final class ConfigKey<T> {
  private final String name;
  private final ValueType<T> type;
  private final T defaultValue;
  private final String defaultText;
  private final boolean optional;
  private final T min;
  private final T max;
  private final Consumer<T> check;
  private final String builderOption;
  private final String doc;
  private final BiConsumer<LsmConfig.Builder, T> toLsm;
  private final Function<LsmConfig, T> fromLsm;
  private final BiConsumer<TransportConfig.Builder, T> toTransport;
  private final Function<TransportConfig.Builder, T> fromTransport;

  private ConfigKey(
      String name,
      ValueType<T> type,
      T defaultValue,
      String defaultText,
      boolean optional,
      T min,
      T max,
      Consumer<T> check,
      String builderOption,
      String doc,
      BiConsumer<LsmConfig.Builder, T> toLsm,
      Function<LsmConfig, T> fromLsm,
      BiConsumer<TransportConfig.Builder, T> toTransport,
      Function<TransportConfig.Builder, T> fromTransport) {
    this.name = name;
    this.type = type;
    this.defaultValue = defaultValue;
    this.defaultText = defaultText;
    this.optional = optional;
    this.min = min;
    this.max = max;
    this.check = check;
    this.builderOption = builderOption;
    this.doc = doc;
    this.toLsm = toLsm;
    this.fromLsm = fromLsm;
    this.toTransport = toTransport;
    this.fromTransport = fromTransport;
  }

  /**
   * A key {@code section.leaf} (or {@code section.group.leaf}, a group of a section such as {@code
   * zookeeper.tls}) with a default; {@code null} declares a required key. The builder option
   * defaults to the leaf.
   */
  static <T> ConfigKey<T> of(String name, ValueType<T> type, T defaultValue) {
    String[] parts = name.split("\\.", -1);
    if (parts.length < 2 || parts.length > 3 || java.util.Arrays.asList(parts).contains("")) {
      throw new IllegalArgumentException("a key is section.leaf or section.group.leaf: " + name);
    }
    int dot = name.lastIndexOf('.');
    return new ConfigKey<>(
        name,
        type,
        defaultValue,
        null,
        false,
        null,
        null,
        v -> {},
        name.substring(dot + 1),
        "",
        null,
        null,
        null,
        null);
  }

  /** A storage engine key: set on {@link LsmConfig.Builder}, default and value read back. */
  static <T> ConfigKey<T> lsm(
      String leaf,
      ValueType<T> type,
      Function<LsmConfig, T> getter,
      BiConsumer<LsmConfig.Builder, T> setter) {
    return new ConfigKey<>(
        "lsm." + leaf,
        type,
        getter.apply(LsmKeys.ENGINE_DEFAULTS),
        null,
        false,
        null,
        null,
        v -> {},
        "lsm(b -> b." + leaf + "(...))",
        "",
        setter,
        getter,
        null,
        null);
  }

  /** A transport key: set on {@link TransportConfig.Builder}, default and value read back. */
  static <T> ConfigKey<T> transport(
      String leaf,
      ValueType<T> type,
      Function<TransportConfig.Builder, T> getter,
      BiConsumer<TransportConfig.Builder, T> setter) {
    return new ConfigKey<>(
        "transport." + leaf,
        type,
        getter.apply(TransportConfig.builder("defaults")),
        null,
        false,
        null,
        null,
        v -> {},
        "transport(b -> b." + leaf + "(...))",
        "",
        null,
        null,
        setter,
        getter);
  }

  private ConfigKey<T> with(
      T min,
      T max,
      Consumer<T> check,
      String builderOption,
      String doc,
      String defaultText,
      boolean optional) {
    return new ConfigKey<>(
        name,
        type,
        defaultValue,
        defaultText,
        optional,
        min,
        max,
        check,
        builderOption,
        doc,
        toLsm,
        fromLsm,
        toTransport,
        fromTransport);
  }

  /** Values outside {@code [min, max]} are refused; {@code max} null: no upper bound. */
  ConfigKey<T> range(T min, T max) {
    if (!(min instanceof Comparable<?>)) {
      throw new IllegalArgumentException(name + ": bounds need comparable values");
    }
    return with(min, max, check, builderOption, doc, defaultText, optional);
  }

  ConfigKey<T> atLeast(T min) {
    return range(min, null);
  }

  /** A further rule on the value alone; it throws an IllegalArgumentException saying why. */
  ConfigKey<T> check(Consumer<T> rule) {
    return with(min, max, rule, builderOption, doc, defaultText, optional);
  }

  /** The {@code FrsmNodeBuilder} method that sets this key; null when no option does. */
  ConfigKey<T> option(String option) {
    return with(min, max, check, option, doc, defaultText, optional);
  }

  ConfigKey<T> doc(String line) {
    return with(min, max, check, builderOption, line, defaultText, optional);
  }

  /** May stay unset: the node derives the value (described by {@code derived} for the docs). */
  ConfigKey<T> derivedByDefault(String derived) {
    return with(min, max, check, builderOption, doc, derived, true);
  }

  /** The key in the file: {@code section.leaf}. */
  public String name() {
    return name;
  }

  /** The environment variable that overrides it: {@code FRSM_<SECTION>_<LEAF>}. */
  public String environmentVariable() {
    return "FRSM_"
        + name.replace('.', '_').replaceAll("([a-z0-9])([A-Z])", "$1_$2").toUpperCase(Locale.ROOT);
  }

  /** The default, or null for a required key or one whose default the node derives. */
  public T defaultValue() {
    return defaultValue;
  }

  /** A required key has no default and must be set. */
  public boolean required() {
    return defaultValue == null && !optional;
  }

  /** Whether the key may stay unset: the node then derives its value. */
  boolean mayBeUnset() {
    return optional;
  }

  /**
   * The default as the documentation writes it: {@code 20ms}, {@code 64MiB}, {@code (required)}.
   */
  public String documentedDefault() {
    if (defaultText != null) {
      return defaultText;
    }
    return required() ? "(required)" : type.print(defaultValue);
  }

  /** What the values are: {@code duration}, {@code bytes}, {@code integer}, {@code host:port}... */
  public String unit() {
    return type.unit();
  }

  /** The inclusive lower bound, or null. */
  public T min() {
    return min;
  }

  /** The inclusive upper bound, or null. */
  public T max() {
    return max;
  }

  /** The builder option that sets this key, e.g. {@code clockDriftPpm}; null if none does. */
  public String builderOption() {
    return builderOption;
  }

  public String doc() {
    return doc;
  }

  /**
   * The key as error messages name it: the file's key and, where there is one, the builder's
   * option, e.g. {@code 'consensus.clockDriftPpm' (FrsmNodeBuilder.clockDriftPpm)}.
   */
  String describe() {
    return "'"
        + name
        + "'"
        + (builderOption == null ? "" : " (FrsmNodeBuilder." + builderOption + ")");
  }

  String print(T value) {
    return type.print(value);
  }

  T parse(Object raw) {
    return type.parse(name, raw);
  }

  /**
   * Checks a value that is set against the bounds and the rule of this key.
   *
   * @throws ConfigException naming the key
   */
  @SuppressWarnings("unchecked")
  void checkValue(T value) {
    Objects.requireNonNull(value, name);
    if ((min != null && ((Comparable<T>) min).compareTo(value) > 0)
        || (max != null && ((Comparable<T>) max).compareTo(value) < 0)) {
      throw new ConfigException(
          "config key "
              + describe()
              + (max == null
                  ? " must be at least " + type.print(min)
                  : " must be in [" + type.print(min) + ", " + type.print(max) + "]")
              + ", was "
              + type.print(value));
    }
    try {
      check.accept(value);
    } catch (ConfigException e) {
      throw e;
    } catch (IllegalArgumentException e) {
      throw new ConfigException("config key " + describe() + ": " + e.getMessage(), e);
    }
  }

  boolean isLsm() {
    return toLsm != null;
  }

  boolean isTransport() {
    return toTransport != null;
  }

  void applyTo(LsmConfig.Builder b, T value) {
    toLsm.accept(b, value);
  }

  T readFrom(LsmConfig lsm) {
    return fromLsm.apply(lsm);
  }

  void applyTo(TransportConfig.Builder b, T value) {
    toTransport.accept(b, value);
  }

  T readFrom(TransportConfig.Builder b) {
    return fromTransport.apply(b);
  }

  @Override
  public String toString() {
    return name;
  }
}
