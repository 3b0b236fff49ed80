package dev.quiver.binding.functions;

/**
 * The sections of the scalar functions, which are JDBC's groups ({@code
 * DatabaseMetaData.getStringFunctions()} and the others).
 */
public enum Group {
  STRING,
  NUMERIC,
  DATETIME,
  SYSTEM
}
