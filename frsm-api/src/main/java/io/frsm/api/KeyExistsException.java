package io.frsm.api;

/**
 * A create found the key present. Definite: the value carried is chosen, and the create did not and
 * will not take effect.
 */
public final class KeyExistsException extends FrsmException {
  private final Versioned current;

  public KeyExistsException(Versioned current) {
    super("key exists at version " + current.version() + "; use cas to change it");
    this.current = current;
  }

  /** The chosen value the key holds. */
  public Versioned current() {
    return current;
  }
}
