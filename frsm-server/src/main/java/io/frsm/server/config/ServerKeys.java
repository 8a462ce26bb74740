package io.frsm.server.config;

import java.util.List;

/**
 * The keys of the {@code server} section: what {@code frsm server} does around its node. Not node
 * settings: an embedded node ignores them (its host application decides, see {@code
 * FrsmNodeBuilder.onFatalError}).
 */
public final class ServerKeys {
  private ServerKeys() {}

  /** docs/OPERATIONS.md "Failure policy". */
  public static final ConfigKey<Boolean> EXIT_ON_FATAL_ERROR =
      ConfigKey.of("server.exitOnFatalError", ValueType.BOOLEAN, true)
          .option(null)
          .doc(
              "a node that stops serving on a fatal error exits with status 70, so a supervisor"
                  + " restarts it; false: it stays up, /health 503");

  static final List<ConfigKey<?>> ALL = List.of(EXIT_ON_FATAL_ERROR);
}
