package io.frsm.server.config;

/** A configuration file or environment variable is invalid. The message names the key. */
public final class ConfigException extends IllegalArgumentException {
  public ConfigException(String message) {
    super(message);
  }

  public ConfigException(String message, Throwable cause) {
    super(message, cause);
  }
}
