package dev.quiver.tests.fuzz;

/** The SQL types of the fuzzer's columns and expressions. */
enum FuzzType {
  INT("INTEGER"),
  BIGINT("BIGINT"),
  DECIMAL("DECIMAL(10, 2)"),
  DOUBLE("DOUBLE"),
  VARCHAR("VARCHAR"),
  DATE("DATE"),
  BOOLEAN("BOOLEAN"),
  TIMESTAMP("TIMESTAMP");

  private final String sql;

  FuzzType(String sql) {
    this.sql = sql;
  }

  /** The type's name in CREATE TABLE and CAST (the same in both engines). */
  String sql() {
    return sql;
  }

  boolean numeric() {
    return this == INT || this == BIGINT || this == DECIMAL || this == DOUBLE;
  }

  /** Whether values of the two types can be compared (numbers with numbers, else same type). */
  boolean comparableWith(FuzzType other) {
    return this == other || (numeric() && other.numeric());
  }

  /** Whether the type is an exact integer type. */
  boolean integral() {
    return this == INT || this == BIGINT;
  }
}
