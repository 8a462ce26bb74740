package io.frsm.testkit.history;

/** The five client operations of {@code io.frsm.api.FrsmClient}, as named in recorded histories. */
public enum OperationKind {
  GET("get"),
  CREATE("create"),
  CAS("cas"),
  DELETE("delete"),
  FENCE("fence");

  private final String jsonName;

  OperationKind(String jsonName) {
    this.jsonName = jsonName;
  }

  /** The name used in the {@code op} field of the JSON-lines format. */
  public String jsonName() {
    return jsonName;
  }

  /** The kind named {@code name} in the JSON-lines format. */
  public static OperationKind fromJsonName(String name) {
    for (OperationKind kind : values()) {
      if (kind.jsonName.equals(name)) {
        return kind;
      }
    }
    throw new IllegalArgumentException(
        "unknown op \"" + name + "\"; expected one of get, create, cas, delete, fence");
  }

  /** Whether the operation's input carries an expected version (cas, delete). */
  boolean takesExpectedVersion() {
    return this == CAS || this == DELETE;
  }

  /** Whether the operation's input carries a new value (create, cas). */
  boolean takesValue() {
    return this == CREATE || this == CAS;
  }
}
