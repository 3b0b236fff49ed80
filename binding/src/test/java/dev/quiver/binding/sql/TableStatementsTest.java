package dev.quiver.binding.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.errors.ConstraintViolationException;
import dev.quiver.binding.errors.QueryTypeException;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.errors.UnknownColumnException;
import dev.quiver.binding.errors.UnknownTableException;
import dev.quiver.binding.settings.SessionConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tables as analysts use them: constraints in CREATE TABLE enforced on INSERT and UPDATE (typed
 * errors naming table, column and value; nothing written), DEFAULT, UPDATE and DELETE with
 * subqueries (atomic, returning counts), DESCRIBE, SHOW TABLES, SHOW COLUMNS and
 * information_schema.
 */
@Timeout(60)
class TableStatementsTest {
  private SessionContext ctx;

  @BeforeEach
  void setUp() {
    ctx = new SessionContext(new SessionConfig().withTargetPartitions(3).withBatchSize(2));
    ctx.sql(
        "CREATE TABLE k (id INTEGER PRIMARY KEY, name VARCHAR NOT NULL DEFAULT 'anon',"
            + " code VARCHAR UNIQUE, qty DECIMAL(10, 2) DEFAULT 0, d DATE)");
  }

  @AfterEach
  void tearDown() {
    ctx.close();
  }

  private List<String> rows(String sql) {
    List<VectorSchemaRoot> batches = ctx.sql(sql).collect();
    List<String> out = new ArrayList<>();
    try {
      for (VectorSchemaRoot b : batches) {
        for (int r = 0; r < b.getRowCount(); r++) {
          List<String> cells = new ArrayList<>();
          for (FieldVector v : b.getFieldVectors()) {
            Object o = v.getObject(r);
            cells.add(o == null ? "null" : o.toString());
          }
          out.add(String.join("|", cells));
        }
      }
    } finally {
      batches.forEach(VectorSchemaRoot::close);
    }
    return out;
  }

  private long count(String sql) {
    return Long.parseLong(rows(sql).get(0));
  }

  @Test
  void constraintsAreEnforcedOnInsertWithTypedErrorsAndNoPartialWrite() {
    assertThat(count("INSERT INTO k VALUES (1, 'a', 'x', 1.5, NULL), (2, 'b', NULL, 2, NULL)"))
        .isEqualTo(2);
    // A duplicate key among the new rows or against the table: nothing of the statement lands.
    assertThatThrownBy(
            () -> ctx.sql("INSERT INTO k VALUES (3, 'c', 'z', 1, NULL), (1, 'd', 'w', 2, NULL)"))
        .isInstanceOfSatisfying(
            ConstraintViolationException.class,
            e -> {
              assertThat(e.table()).isEqualTo("k");
              assertThat(e.column()).isEqualTo("id");
              assertThat(e.value()).isEqualTo("1");
              assertThat(e.getMessage())
                  .isEqualTo(
                      "INSERT INTO k: duplicate value 1 in column id breaks PRIMARY KEY (id);"
                          + " no row was written");
            });
    assertThatThrownBy(
            () -> ctx.sql("INSERT INTO k VALUES (5, 'e', 'q', 1, NULL), (6, 'f', 'q', 1, NULL)"))
        .isInstanceOfSatisfying(
            ConstraintViolationException.class, e -> assertThat(e.value()).isEqualTo("'q'"));
    assertThatThrownBy(() -> ctx.sql("INSERT INTO k VALUES (7, NULL, NULL, 1, NULL)"))
        .isInstanceOfSatisfying(
            ConstraintViolationException.class,
            e -> {
              assertThat(e.column()).isEqualTo("name");
              assertThat(e.value()).isEqualTo("NULL");
              assertThat(e.getMessage()).contains("NOT NULL");
            });
    // A NULL primary key is refused too (PRIMARY KEY implies NOT NULL).
    assertThatThrownBy(() -> ctx.sql("INSERT INTO k (name) VALUES ('n')"))
        .isInstanceOf(ConstraintViolationException.class)
        .hasMessageContaining("id");
    // NULL from a query, not a literal, is caught on the values.
    assertThatThrownBy(() -> ctx.sql("INSERT INTO k SELECT 8, CAST(NULL AS VARCHAR), 'n', 1, NULL"))
        .isInstanceOf(ConstraintViolationException.class);
    assertThat(rows("SELECT id FROM k ORDER BY id")).containsExactly("1", "2");
    // UNIQUE allows many NULLs.
    assertThat(count("INSERT INTO k VALUES (9, 'g', NULL, 1, NULL), (10, 'h', NULL, 1, NULL)"))
        .isEqualTo(2);
  }

  @Test
  void compositeAndTableLevelKeys() {
    ctx.sql(
        "CREATE TABLE k2 (a INTEGER, b VARCHAR, c BIGINT, CONSTRAINT pk PRIMARY KEY (a, b), UNIQUE (c))");
    assertThat(
            count("INSERT INTO k2 VALUES (1, 'x', 1), (1, 'y', 2), (2, 'x', NULL), (3, 'x', NULL)"))
        .isEqualTo(4);
    assertThatThrownBy(() -> ctx.sql("INSERT INTO k2 VALUES (1, 'y', 9)"))
        .isInstanceOfSatisfying(
            ConstraintViolationException.class,
            e -> {
              assertThat(e.column()).isEqualTo("(a, b)");
              assertThat(e.value()).isEqualTo("(1, 'y')");
              assertThat(e.getMessage()).contains("PRIMARY KEY (a, b)");
            });
    assertThatThrownBy(() -> ctx.sql("INSERT INTO k2 VALUES (4, 'x', 2)"))
        .isInstanceOf(ConstraintViolationException.class)
        .hasMessageContaining("UNIQUE (c)");
    assertThat(rows("DESCRIBE k2"))
        .containsExactly(
            "a|INTEGER|NO|PRI|null|null",
            "b|VARCHAR|NO|PRI|null|null",
            "c|BIGINT|YES|UNI|null|null");
  }

  @Test
  void defaultsFillLeftOutColumnsAndDefaultCells() {
    assertThat(count("INSERT INTO k (id, code) VALUES (1, 'y')")).isEqualTo(1);
    assertThat(count("INSERT INTO k VALUES (2, DEFAULT, NULL, DEFAULT, DEFAULT)")).isEqualTo(1);
    assertThat(count("INSERT INTO k (id) SELECT 3")).isEqualTo(1);
    assertThat(rows("SELECT id, name, qty, d FROM k ORDER BY id"))
        .containsExactly("1|anon|0.00|null", "2|anon|0.00|null", "3|anon|0.00|null");
    // Calcite's parser takes DEFAULT in VALUES, not in UPDATE ... SET.
    assertThatThrownBy(() -> ctx.sql("UPDATE k SET name = DEFAULT"))
        .isInstanceOf(QuiverException.class);
  }

  @Test
  void createTableRefusesWhatItCannotEnforce() {
    assertThatThrownBy(() -> ctx.sql("CREATE TABLE c1 (a INT CHECK (a > 0))"))
        .isInstanceOf(QuiverException.class)
        .hasMessageContaining("CHECK constraints are not supported");
    assertThatThrownBy(() -> ctx.sql("CREATE TABLE c2 (a INT REFERENCES k (id))"))
        .hasMessageContaining("REFERENCES");
    assertThatThrownBy(() -> ctx.sql("CREATE TABLE c3 (a INT PRIMARY KEY, b INT PRIMARY KEY)"))
        .hasMessageContaining("at most one PRIMARY KEY");
    assertThatThrownBy(() -> ctx.sql("CREATE TABLE c4 (a INT, PRIMARY KEY (nope))"))
        .isInstanceOf(UnknownColumnException.class);
    assertThatThrownBy(() -> ctx.sql("CREATE TABLE c5 (a INT DEFAULT 'x' || a)"))
        .isInstanceOf(QueryTypeException.class)
        .hasMessageContaining("DEFAULT");
    assertThatThrownBy(() -> ctx.sql("CREATE TABLE c6 (a DATE DEFAULT 1.5)"))
        .isInstanceOf(QueryTypeException.class);
    assertThat(rows("SHOW TABLES")).containsExactly("k");
  }

  @Test
  void updateWithSubqueriesReturnsTheCountAndIsAtomic() {
    ctx.sql(
        "INSERT INTO k VALUES (1, 'a', 'x', 1, NULL), (2, 'b', 'y', 2, NULL), (3, 'c', NULL, 0, NULL)");
    ctx.sql("CREATE TABLE pick AS SELECT 1 AS id UNION ALL SELECT 3");
    assertThat(
            count(
                "UPDATE k SET qty = qty * 10, name = upper(name) WHERE id IN (SELECT id FROM pick)"))
        .isEqualTo(2);
    assertThat(rows("SELECT id, name, qty FROM k ORDER BY id"))
        .containsExactly("1|A|10.00", "2|b|2.00", "3|C|0.00");
    // A correlated subquery in SET, over the table itself; an alias.
    assertThat(
            count(
                "UPDATE k AS t SET qty = (SELECT max(qty) FROM k WHERE k.id <> t.id) WHERE t.id = 3"))
        .isEqualTo(1);
    assertThat(rows("SELECT qty FROM k WHERE id = 3")).containsExactly("10.00");
    // No WHERE: every row; values are cast to the column's type.
    assertThat(count("UPDATE k SET d = '2024-01-02'")).isEqualTo(3);
    assertThat(rows("SELECT count(*) FROM k WHERE d = DATE '2024-01-02'")).containsExactly("3");
    // A failing expression, a broken key or NOT NULL: the table is unchanged.
    assertThatThrownBy(() -> ctx.sql("UPDATE k SET qty = 1 / (id - 2)"))
        .hasMessageStartingWith("Division by zero");
    assertThatThrownBy(() -> ctx.sql("UPDATE k SET id = 1 WHERE id = 2"))
        .isInstanceOf(ConstraintViolationException.class)
        .hasMessageStartingWith("UPDATE k: duplicate value 1 in column id");
    assertThatThrownBy(() -> ctx.sql("UPDATE k SET name = NULL WHERE id = 2"))
        .isInstanceOf(ConstraintViolationException.class)
        .hasMessageContaining("column name");
    assertThat(rows("SELECT id, name, qty FROM k ORDER BY id"))
        .containsExactly("1|A|10.00", "2|b|2.00", "3|C|10.00");
    // Expressions are evaluated only for the rows they update.
    assertThat(count("UPDATE k SET qty = 6 / (id - 1) WHERE id > 1")).isEqualTo(2);
    assertThat(rows("SELECT qty FROM k ORDER BY id")).containsExactly("10.00", "6.00", "3.00");
    assertThat(count("UPDATE k SET qty = 0 WHERE 1 = 0")).isZero();
  }

  @Test
  void deleteWithSubqueriesReturnsTheCount() {
    ctx.sql(
        "INSERT INTO k VALUES (1, 'a', 'x', 1, NULL), (2, 'b', 'y', 2, NULL), (3, 'c', NULL, NULL, NULL)");
    assertThat(count("DELETE FROM k WHERE qty > (SELECT min(qty) FROM k)")).isEqualTo(1);
    // NULL conditions keep the row (qty of 3 is NULL).
    assertThat(count("DELETE FROM k WHERE qty < 100")).isEqualTo(1);
    assertThat(rows("SELECT id FROM k")).containsExactly("3");
    assertThat(count("DELETE FROM k AS t WHERE NOT EXISTS (SELECT 1 FROM k WHERE k.id = t.id + 1)"))
        .isEqualTo(1);
    ctx.sql("INSERT INTO k VALUES (4, 'd', NULL, 1, NULL)");
    assertThat(count("DELETE FROM k")).isEqualTo(1);
    assertThat(rows("SELECT count(*) FROM k")).containsExactly("0");
    // The key of a deleted row is free again.
    assertThat(count("INSERT INTO k VALUES (4, 'd', NULL, 1, NULL)")).isEqualTo(1);
  }

  @Test
  void updateAndDeleteNameWhatTheyCannotChange(@TempDir Path dir) throws Exception {
    Path csv = dir.resolve("f.csv");
    Files.writeString(csv, "a,b\n1,2\n");
    ctx.registerCsv("f", csv.toString());
    ctx.sql("CREATE VIEW v AS SELECT * FROM k");
    assertThatThrownBy(() -> ctx.sql("UPDATE f SET a = 1"))
        .isInstanceOf(QuiverException.class)
        .hasMessageContaining("only memory tables");
    assertThatThrownBy(() -> ctx.sql("DELETE FROM v")).hasMessageContaining("is a view");
    assertThatThrownBy(() -> ctx.sql("DELETE FROM nope")).isInstanceOf(UnknownTableException.class);
    assertThatThrownBy(() -> ctx.sql("UPDATE k SET nope = 1"))
        .isInstanceOf(UnknownColumnException.class);
    assertThatThrownBy(() -> ctx.sql("UPDATE k SET qty = 1, qty = 2"))
        .hasMessageContaining("twice");
  }

  @Test
  void concurrentInsertsAndUpdatesLoseNoWrites() throws Exception {
    ctx.sql("CREATE TABLE n (id INTEGER PRIMARY KEY, v BIGINT)");
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        int thread = t;
        done.add(
            pool.submit(
                () -> {
                  // Sessions share the catalog; each statement rewrites the whole table, so
                  // without the table's write lock one would drop another's rows or updates.
                  try (SessionContext s = ctx.newSession()) {
                    s.sql("INSERT INTO n VALUES (" + thread + ", 0)")
                        .collect()
                        .forEach(VectorSchemaRoot::close);
                    for (int i = 1; i <= 10; i++) {
                      s.sql("UPDATE n SET v = v + 1 WHERE id = " + thread)
                          .collect()
                          .forEach(VectorSchemaRoot::close);
                      s.sql("INSERT INTO n VALUES (" + (thread * 100 + 100 + i) + ", -1)")
                          .collect()
                          .forEach(VectorSchemaRoot::close);
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : done) {
        f.get(50, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(rows("SELECT count(*) FROM n")).containsExactly("44");
    assertThat(rows("SELECT id, v FROM n WHERE id < 4 ORDER BY id"))
        .containsExactly("0|10", "1|10", "2|10", "3|10");
  }

  @Test
  void describeShowAndInformationSchema() {
    ctx.sql("CREATE VIEW kv AS SELECT id, qty * 2 AS q2 FROM k");
    assertThat(rows("DESCRIBE k"))
        .containsExactly(
            "id|INTEGER|NO|PRI|null|null",
            "name|VARCHAR|NO|null|'anon'|null",
            "code|VARCHAR|YES|UNI|null|null",
            "qty|DECIMAL(10,2)|YES|null|0|null",
            "d|DATE|YES|null|null|null");
    assertThat(rows("SHOW COLUMNS FROM k")).isEqualTo(rows("DESCRIBE TABLE k"));
    assertThat(rows("DESCRIBE kv"))
        .containsExactly("id|INTEGER|NO|null|null|null", "q2|DECIMAL(20,2)|YES|null|null|null");
    assertThat(ctx.sql("DESCRIBE k").schema().getFields().stream().map(f -> f.getName()).toList())
        .containsExactly("column_name", "column_type", "null", "key", "default", "extra");
    assertThat(rows("SHOW TABLES")).containsExactly("k", "kv");
    assertThat(rows("SELECT table_name, table_type FROM information_schema.tables ORDER BY 1"))
        .containsExactly("k|BASE TABLE", "kv|VIEW");
    assertThat(
            rows(
                "SELECT c.column_name, c.data_type, c.is_nullable FROM information_schema.columns c"
                    + " JOIN information_schema.tables t ON c.table_name = t.table_name"
                    + " WHERE t.table_type = 'VIEW' ORDER BY c.ordinal_position"))
        .containsExactly("id|INTEGER|NO", "q2|DECIMAL(20,2)|YES");
    // information_schema reflects the catalog at each statement.
    ctx.sql("DROP VIEW kv");
    assertThat(rows("SELECT count(*) FROM information_schema.tables")).containsExactly("1");
    ctx.sql("DROP TABLE k");
    assertThat(rows("SELECT count(*) FROM information_schema.columns")).containsExactly("0");
    assertThat(rows("SHOW TABLES")).isEmpty();
    assertThatThrownBy(() -> ctx.sql("DESCRIBE k")).isInstanceOf(UnknownTableException.class);
    assertThat(ctx.isQuery("DESCRIBE k")).isTrue();
    assertThat(ctx.isQuery("UPDATE k SET a = 1")).isFalse();
  }

  /**
   * CREATE [UNIQUE] INDEX and DROP INDEX, as SQLite, PostgreSQL and DuckDB scripts write them: a
   * UNIQUE index is enforced on INSERT and UPDATE with a typed error naming it and the duplicate
   * key, a plain one is metadata only (the corpus compares the same script with DuckDB).
   */
  @Test
  void indexes() {
    ctx.sql("INSERT INTO k (id, name, code) VALUES (1, 'a', 'x'), (2, 'b', 'y'), (3, 'b', NULL)");
    assertThatThrownBy(() -> ctx.sql("CREATE UNIQUE INDEX k_name ON k (name)"))
        .isInstanceOfSatisfying(
            ConstraintViolationException.class,
            e -> {
              assertThat(e.table()).isEqualTo("k");
              assertThat(e.value()).isEqualTo("'b'");
              assertThat(e.getMessage())
                  .isEqualTo(
                      "CREATE UNIQUE INDEX k_name: duplicate value 'b' in column name breaks"
                          + " UNIQUE INDEX k_name (name); no row was written");
            });
    ctx.sql("CREATE UNIQUE INDEX k_qd ON k (qty, d)");
    ctx.sql("CREATE INDEX k_name ON k (name)");
    // The failed CREATE above left no index behind: k_name is the plain one.
    assertThat(count("INSERT INTO k (id, name, qty, d) VALUES (4, 'b', 1, DATE '2024-01-01')"))
        .isEqualTo(1);
    assertThatThrownBy(
            () -> ctx.sql("INSERT INTO k (id, name, qty, d) VALUES (5, 'c', 1, DATE '2024-01-01')"))
        .isInstanceOfSatisfying(
            ConstraintViolationException.class,
            e -> {
              assertThat(e.column()).isEqualTo("(qty, d)");
              assertThat(e.value()).isEqualTo("(1.00, DATE '2024-01-01')");
              assertThat(e.getMessage()).contains("breaks UNIQUE INDEX k_qd (qty, d)");
            });
    assertThatThrownBy(() -> ctx.sql("UPDATE k SET qty = 1, d = DATE '2024-01-01' WHERE id = 1"))
        .isInstanceOf(ConstraintViolationException.class)
        .hasMessageContaining("k_qd");
    assertThatThrownBy(() -> ctx.sql("CREATE INDEX k_name ON k (id)"))
        .isInstanceOf(QuiverException.class)
        .hasMessageContaining("Index 'k_name' already exists");
    assertThatThrownBy(() -> ctx.sql("CREATE INDEX k_zz ON k (nope)"))
        .isInstanceOf(UnknownColumnException.class);
    assertThatThrownBy(() -> ctx.sql("CREATE INDEX k_zz ON nope (id)"))
        .isInstanceOf(UnknownTableException.class);
    ctx.sql("CREATE VIEW kv AS SELECT * FROM k");
    assertThatThrownBy(() -> ctx.sql("CREATE INDEX kv_id ON kv (id)"))
        .isInstanceOf(QuiverException.class)
        .hasMessageContaining("kv");
    ctx.sql("CREATE INDEX IF NOT EXISTS k_name ON k (id)");
    ctx.sql("DROP INDEX k_qd");
    assertThat(count("INSERT INTO k (id, name, qty, d) VALUES (5, 'c', 1, DATE '2024-01-01')"))
        .isEqualTo(1);
    ctx.sql("DROP INDEX IF EXISTS k_qd");
    assertThatThrownBy(() -> ctx.sql("DROP INDEX k_qd"))
        .isInstanceOf(QuiverException.class)
        .hasMessageContaining("Index 'k_qd' does not exist");
    // Indexes go with their table.
    ctx.sql("DROP VIEW kv");
    ctx.sql("DROP TABLE k");
    ctx.sql("CREATE TABLE k (id INTEGER)");
    ctx.sql("CREATE UNIQUE INDEX k_name ON k (id)");
    assertThat(rows("SELECT COUNT(*) FROM k")).containsExactly("0");
  }
}
