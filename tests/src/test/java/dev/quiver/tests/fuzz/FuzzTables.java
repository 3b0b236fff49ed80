package dev.quiver.tests.fuzz;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;

/**
 * The fuzzer's small tables: a few tables of 0 to 60 rows with the same columns, many NULLs, and
 * duplicated rows, built from a seed and loaded with the same CREATE TABLE and INSERT statements
 * into every engine. Value domains are small and overlap across columns of a kind, so that joins
 * and comparisons match often; doubles are multiples of 1/4 so their sums are exact.
 *
 * <p>One more table, {@code t4}, is a Parquet file written by DuckDB ({@link #writeFiles}) with the
 * narrower types DuckDB writes ({@link #FILE_TYPES}: TINYINT, SMALLINT, FLOAT), read by every
 * engine through a view over {@code read_parquet} and, in queries, as {@code read_parquet('...')}
 * itself.
 */
final class FuzzTables {
  /** A column: its name, type and how its non-NULL values are drawn. */
  record Column(String name, FuzzType type, Function<Random, Object> values) {}

  /**
   * A table: its name, columns and rows (Java values, null for NULL); {@code file} is the Parquet
   * file a file table is read from (null for a table loaded by INSERT).
   */
  record Table(String name, List<Column> columns, List<List<Object>> rows, Path file) {
    /** What a FROM clause names: the table, or now and then a file table's read_parquet call. */
    String from(Random r) {
      return file != null && r.nextBoolean() ? readParquet(file) : name;
    }
  }

  /**
   * The file table's columns whose Parquet type differs from the column's: integers of one and two
   * bytes, and a FLOAT that Quiver reads as DOUBLE (README, Parquet types) and DuckDB is told to
   * read as DOUBLE ({@link DuckDbFuzzEngine}). Values fit all of them exactly.
   */
  static final Map<String, String> FILE_TYPES =
      Map.of("i1", "TINYINT", "i2", "SMALLINT", "f2", "FLOAT");

  private static final String[] WORDS = {
    "a", "b", "c", "ab", "abc", "A", "B", "", " a", "a ", "ba", "zz", "x_y", "10", "2", "%"
  };
  private static final String[] LETTERS = {"a", "b", "c", "d"};
  private static final LocalDate DAY0 = LocalDate.of(2020, 1, 1);
  private static final LocalDateTime HOUR0 = DAY0.atStartOfDay();
  private static final long[] BIG = {10_000_000_000L, -10_000_000_000L, 2_147_483_648L};

  /** The columns every table has; {@code id} is unique and never NULL. */
  static final List<Column> COLUMNS =
      List.of(
          new Column("id", FuzzType.INT, r -> 0),
          new Column("i1", FuzzType.INT, r -> r.nextInt(5)),
          new Column("i2", FuzzType.INT, r -> r.nextInt(11) - 5),
          new Column("i3", FuzzType.INT, r -> r.nextInt(31)),
          new Column(
              "n1",
              FuzzType.BIGINT,
              r -> r.nextInt(10) == 0 ? BIG[r.nextInt(BIG.length)] : (long) (r.nextInt(14) - 3)),
          new Column("n2", FuzzType.BIGINT, r -> (long) r.nextInt(101)),
          new Column(
              "m1",
              FuzzType.DECIMAL,
              r ->
                  BigDecimal.valueOf(
                      r.nextBoolean() ? (r.nextInt(41) - 20) * 25L : r.nextInt(1001) - 500, 2)),
          new Column("m2", FuzzType.DECIMAL, r -> BigDecimal.valueOf(r.nextInt(5) * 100L, 2)),
          new Column("f1", FuzzType.DOUBLE, r -> (r.nextInt(17) - 8) / 2.0),
          new Column("f2", FuzzType.DOUBLE, r -> (double) r.nextInt(5)),
          new Column("s1", FuzzType.VARCHAR, r -> WORDS[r.nextInt(WORDS.length)]),
          new Column("s2", FuzzType.VARCHAR, r -> LETTERS[r.nextInt(LETTERS.length)]),
          new Column("d1", FuzzType.DATE, r -> DAY0.plusDays(r.nextInt(10))),
          new Column(
              "d2",
              FuzzType.DATE,
              r ->
                  switch (r.nextInt(12)) {
                    case 0 -> LocalDate.of(2000, 2, 29);
                    case 1 -> LocalDate.of(1999, 12, 31);
                    default -> DAY0.plusDays(r.nextInt(40) - 7);
                  }),
          new Column("b1", FuzzType.BOOLEAN, Random::nextBoolean),
          new Column("b2", FuzzType.BOOLEAN, r -> r.nextInt(4) == 0),
          new Column(
              "ts1",
              FuzzType.TIMESTAMP,
              r -> HOUR0.plusHours(r.nextInt(60) - 6).plusMinutes(r.nextInt(4) * 15L)));

  private final List<Table> tables;

  private FuzzTables(List<Table> tables) {
    this.tables = tables;
  }

  /**
   * The tables of {@code seed}: t0 and t1 of 5 to 60 rows, t2 of 0 to 12, t3 of 0 to 3, and the
   * file table t4 of 0 to 40 rows in {@code dir}, written there by {@link #writeFiles}.
   */
  static FuzzTables generate(long seed, Path dir) {
    Random r = new Random(seed);
    List<Table> tables = new ArrayList<>();
    int[][] sizes = {{5, 60}, {5, 60}, {0, 12}, {0, 3}, {0, 40}};
    for (int t = 0; t < sizes.length; t++) {
      int rows = sizes[t][0] + r.nextInt(sizes[t][1] - sizes[t][0] + 1);
      Path file = t == sizes.length - 1 ? dir.resolve("t" + t + ".parquet") : null;
      tables.add(table("t" + t, rows, r, file));
    }
    return new FuzzTables(List.copyOf(tables));
  }

  /** {@code read_parquet('file')}, the same text in every engine. */
  static String readParquet(Path file) {
    return "read_parquet('" + file.toString().replace("'", "''") + "')";
  }

  /**
   * Writes the file tables' Parquet files with DuckDB (whichever engines a run compares, so that
   * both read the very same file): CREATE TABLE with {@link #FILE_TYPES}, the rows, COPY TO.
   */
  void writeFiles(long seed) {
    try (Connection duckdb = DriverManager.getConnection("jdbc:duckdb:");
        Statement s = duckdb.createStatement()) {
      for (Table t : tables) {
        if (t.file() == null) {
          continue;
        }
        for (String statement : load(t, new Random(seed), FILE_TYPES)) {
          s.execute(statement);
        }
        s.execute("COPY " + t.name() + " TO '" + t.file() + "' (FORMAT PARQUET)");
      }
    } catch (SQLException e) {
      throw new IllegalStateException("Cannot write the fuzzer's Parquet files with DuckDB", e);
    }
  }

  private static Table table(String name, int rowCount, Random r, Path file) {
    double[] nullRate = new double[COLUMNS.size()];
    for (int c = 1; c < COLUMNS.size(); c++) {
      double[] rates = {0, 0.1, 0.2, 0.2, 0.4, 0.7};
      nullRate[c] = r.nextInt(50) == 0 ? 1.0 : rates[r.nextInt(rates.length)];
    }
    List<Integer> ids = new ArrayList<>();
    for (int i = 1; i <= rowCount; i++) {
      ids.add(i);
    }
    Collections.shuffle(ids, r);
    List<List<Object>> rows = new ArrayList<>();
    for (int i = 0; i < rowCount; i++) {
      List<Object> row = new ArrayList<>();
      row.add(ids.get(i));
      if (!rows.isEmpty() && r.nextInt(4) == 0) {
        // A duplicate of an earlier row (but for its id).
        row.addAll(rows.get(r.nextInt(rows.size())).subList(1, COLUMNS.size()));
      } else {
        for (int c = 1; c < COLUMNS.size(); c++) {
          row.add(r.nextDouble() < nullRate[c] ? null : COLUMNS.get(c).values().apply(r));
        }
      }
      rows.add(Collections.unmodifiableList(row));
    }
    return new Table(name, COLUMNS, List.copyOf(rows), file);
  }

  List<Table> tables() {
    return tables;
  }

  /**
   * The statements that create and fill the tables: one CREATE TABLE each, then INSERTs of a few
   * rows at a time (so that Quiver's memory tables hold several batches), in an order drawn from
   * {@code seed}; a file table is a view over its file.
   */
  List<String> statements(long seed) {
    Random r = new Random(seed);
    List<String> out = new ArrayList<>();
    for (Table t : tables) {
      if (t.file() != null) {
        out.add("CREATE VIEW " + t.name() + " AS SELECT * FROM " + readParquet(t.file()));
      } else {
        out.addAll(load(t, r, Map.of()));
      }
    }
    return out;
  }

  /** CREATE TABLE (with {@code types} overriding column types) and INSERTs of {@code t}'s rows. */
  private static List<String> load(Table t, Random r, Map<String, String> types) {
    List<String> out = new ArrayList<>();
    StringBuilder ddl = new StringBuilder("CREATE TABLE ").append(t.name()).append(" (");
    for (int c = 0; c < t.columns().size(); c++) {
      Column col = t.columns().get(c);
      ddl.append(c == 0 ? "" : ", ")
          .append(col.name())
          .append(' ')
          .append(types.getOrDefault(col.name(), col.type().sql()));
    }
    out.add(ddl.append(')').toString());
    int at = 0;
    while (at < t.rows().size()) {
      int n = 1 + r.nextInt(Math.max(1, t.rows().size() - at));
      StringBuilder ins = new StringBuilder("INSERT INTO ").append(t.name()).append(" VALUES ");
      for (int i = at; i < at + n; i++) {
        ins.append(i == at ? "" : ", ").append('(');
        List<Object> row = t.rows().get(i);
        for (int c = 0; c < row.size(); c++) {
          ins.append(c == 0 ? "" : ", ").append(literal(row.get(c)));
        }
        ins.append(')');
      }
      out.add(ins.toString());
      at += n;
    }
    return out;
  }

  /** A SQL literal both engines read as {@code v} (untyped NULL for null). */
  static String literal(Object v) {
    if (v == null) {
      return "NULL";
    }
    if (v instanceof String s) {
      return "'" + s.replace("'", "''") + "'";
    }
    if (v instanceof LocalDate d) {
      return "DATE '" + d + "'";
    }
    if (v instanceof LocalDateTime t) {
      return "TIMESTAMP '" + t.toLocalDate() + " " + t.toLocalTime() + ":00'";
    }
    if (v instanceof Boolean b) {
      return b ? "TRUE" : "FALSE";
    }
    if (v instanceof BigDecimal d) {
      return d.toPlainString();
    }
    if (v instanceof Double d) {
      // An approximate-numeric literal: DOUBLE in both engines.
      return d + "E0";
    }
    return v.toString();
  }
}
