package dev.quiver.binding.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class TableFormatterTest {
  private final BufferAllocator allocator = new RootAllocator();

  private static final Schema SCHEMA =
      new Schema(
          List.of(
              Field.nullable("i32", new ArrowType.Int(32, true)),
              Field.nullable("i64", new ArrowType.Int(64, true)),
              Field.nullable("i8", new ArrowType.Int(8, true)),
              Field.nullable("i16", new ArrowType.Int(16, true)),
              Field.nullable("dbl", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
              Field.nullable("price", new ArrowType.Decimal(15, 2, 128)),
              Field.nullable("name", ArrowType.Utf8.INSTANCE),
              Field.nullable("flag", ArrowType.Bool.INSTANCE),
              Field.nullable("day", new ArrowType.Date(DateUnit.DAY)),
              Field.nullable(
                  "ts",
                  new ArrowType.Timestamp(
                      org.apache.arrow.vector.types.TimeUnit.MICROSECOND, null)),
              Field.nullable("nothing", ArrowType.Null.INSTANCE)));

  @AfterEach
  void allocatorIsEmpty() {
    assertThat(allocator.getAllocatedMemory()).isZero();
    allocator.close();
  }

  /** A batch of SCHEMA with one row per array (values in column order; null: an all-null row). */
  private VectorSchemaRoot batch(Object[][] rows) {
    VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
    root.allocateNew();
    for (int r = 0; r < rows.length; r++) {
      Object[] v = rows[r];
      if (v == null) {
        for (int c = 0; c < 10; c++) {
          root.getVector(c).setNull(r);
        }
        continue;
      }
      ((IntVector) root.getVector(0)).setSafe(r, (Integer) v[0]);
      ((BigIntVector) root.getVector(1)).setSafe(r, (Long) v[1]);
      ((TinyIntVector) root.getVector(2)).setSafe(r, (Byte) v[2]);
      ((SmallIntVector) root.getVector(3)).setSafe(r, (Short) v[3]);
      ((Float8Vector) root.getVector(4)).setSafe(r, (Double) v[4]);
      ((DecimalVector) root.getVector(5)).setSafe(r, (BigDecimal) v[5]);
      ((VarCharVector) root.getVector(6))
          .setSafe(r, ((String) v[6]).getBytes(StandardCharsets.UTF_8));
      ((BitVector) root.getVector(7)).setSafe(r, (Boolean) v[7] ? 1 : 0);
      ((DateDayVector) root.getVector(8)).setSafe(r, (int) ((LocalDate) v[8]).toEpochDay());
      ((TimeStampMicroVector) root.getVector(9)).setSafe(r, (Long) v[9]);
    }
    ((NullVector) root.getVector(10)).setValueCount(rows.length);
    root.setRowCount(rows.length);
    return root;
  }

  @Test
  void rendersEveryTypeAndNulls() {
    try (VectorSchemaRoot first =
            batch(
                new Object[][] {
                  {
                    1,
                    10_000_000_000L,
                    (byte) -3,
                    (short) 300,
                    0.1,
                    new BigDecimal("1234.50"),
                    "alpha",
                    true,
                    LocalDate.of(1994, 1, 1),
                    757_382_400_000_000L
                  },
                  null
                });
        VectorSchemaRoot second =
            batch(
                new Object[][] {
                  {
                    -42,
                    -1L,
                    (byte) 7,
                    (short) -2,
                    12345678.9,
                    new BigDecimal("-0.07"),
                    "a much longer string value that is not truncated",
                    false,
                    LocalDate.of(1998, 12, 1),
                    757_382_400_123_456L
                  }
                })) {
      String text = TableFormatter.format(SCHEMA, List.of(first, second), 20);
      assertThat(text)
          .isEqualTo(
              "+------+-------------+------+------+------------+---------+--------------------------------------------------+-------+------------+----------------------------+---------+\n"
                  + "|  i32 |         i64 |   i8 |  i16 |        dbl |   price | name                                             | flag  | day        | ts                         | nothing |\n"
                  + "+------+-------------+------+------+------------+---------+--------------------------------------------------+-------+------------+----------------------------+---------+\n"
                  + "|    1 | 10000000000 |   -3 |  300 |        0.1 | 1234.50 | alpha                                            | true  | 1994-01-01 | 1994-01-01T00:00:00        | NULL    |\n"
                  + "| NULL |        NULL | NULL | NULL |       NULL |    NULL | NULL                                             | NULL  | NULL       | NULL                       | NULL    |\n"
                  + "|  -42 |          -1 |    7 |   -2 | 12345678.9 |   -0.07 | a much longer string value that is not truncated | false | 1998-12-01 | 1994-01-01T00:00:00.123456 | NULL    |\n"
                  + "+------+-------------+------+------+------------+---------+--------------------------------------------------+-------+------------+----------------------------+---------+\n"
                  + "3 rows\n");
    }
  }

  @Test
  void truncatesAndSaysSo() {
    Schema schema = new Schema(List.of(Field.nullable("n", new ArrowType.Int(64, true))));
    try (VectorSchemaRoot a = VectorSchemaRoot.create(schema, allocator);
        VectorSchemaRoot b = VectorSchemaRoot.create(schema, allocator)) {
      for (VectorSchemaRoot root : List.of(a, b)) {
        BigIntVector v = (BigIntVector) root.getVector(0);
        v.allocateNew(3);
        for (int i = 0; i < 3; i++) {
          v.set(i, i + (root == a ? 0 : 100));
        }
        root.setRowCount(3);
      }
      assertThat(TableFormatter.format(schema, List.of(a, b), 4))
          .isEqualTo(
              "+-----+\n"
                  + "|   n |\n"
                  + "+-----+\n"
                  + "|   0 |\n"
                  + "|   1 |\n"
                  + "|   2 |\n"
                  + "| 100 |\n"
                  + "+-----+\n"
                  + "6 rows (showing first 4 rows)\n");
      assertThat(TableFormatter.format(schema, List.of(a), 1))
          .endsWith("| 0 |\n+---+\n3 rows (showing first 1 row)\n");
    }
  }

  @Test
  void emptyResultShowsHeaderAndZeroRows() {
    Schema schema =
        new Schema(
            List.of(
                Field.nullable("id", new ArrowType.Int(32, true)),
                Field.nullable("label", ArrowType.Utf8.INSTANCE)));
    assertThat(TableFormatter.format(schema, List.of(), 10))
        .isEqualTo("+----+-------+\n| id | label |\n+----+-------+\n0 rows\n");
    assertThatThrownBy(() -> TableFormatter.format(schema, List.of(), -1))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void singleRowAndSpecialCharacters() {
    Schema schema = new Schema(List.of(Field.nullable("s", ArrowType.Utf8.INSTANCE)));
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      VarCharVector v = (VarCharVector) root.getVector(0);
      v.allocateNew();
      v.setSafe(0, "two\nlines é\tx".getBytes(StandardCharsets.UTF_8));
      root.setRowCount(1);
      // A line break makes the row span lines (EXPLAIN plans read as text); a tab is escaped.
      assertThat(TableFormatter.format(schema, List.of(root), 20))
          .isEqualTo(
              "+------------+\n| s          |\n+------------+\n| two        |\n| lines é\\tx |\n"
                  + "+------------+\n1 row\n");
    }
  }
}
