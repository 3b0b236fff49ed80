package dev.quiver.binding.datasource.parquet;

/**
 * How an Arrow leaf vector's values become Parquet values: which buffer reads, which unit
 * conversion, which physical type they are written as.
 */
enum ValueKind {
  BOOLEAN,
  /** A signed 8-bit integer, written as INT32. */
  INT8,
  /** A signed 16-bit integer, written as INT32. */
  INT16,
  /** An unsigned 8-bit integer, written as INT32. */
  UINT8,
  /** An unsigned 16-bit integer, written as INT32. */
  UINT16,
  /** Four bytes written as INT32 as they are (int, unsigned int, date in days, time in ms). */
  INT32,
  /** Seconds of a time of day, written as INT32 milliseconds. */
  TIME_SECONDS,
  /** A date in milliseconds, written as INT32 days. */
  DATE_MILLIS,
  /** Eight bytes written as INT64 as they are. */
  INT64,
  /** A timestamp in seconds, written as INT64 milliseconds (Parquet has no seconds unit). */
  TIMESTAMP_SECONDS,
  FLOAT,
  DOUBLE,
  /** A half float, written as its two little-endian bytes (FLOAT16). */
  FLOAT16,
  /** Variable-length bytes with 32-bit offsets (strings, binary). */
  BINARY,
  /** Variable-length bytes with 64-bit offsets. */
  LARGE_BINARY,
  /** Fixed-length bytes as they are. */
  FIXED,
  /** A decimal written as its INT32 unscaled value (precision up to 9). */
  DECIMAL_INT32,
  /** A decimal written as its INT64 unscaled value (precision up to 18). */
  DECIMAL_INT64,
  /** A decimal written as big-endian two's complement bytes of its precision's width. */
  DECIMAL_FIXED,
  /** The null type: every value is null. */
  NULL
}
