package dev.quiver.examples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class OutputFormatTest {
  private static final Schema SCHEMA =
      new Schema(
          List.of(
              Field.nullable("id", new ArrowType.Int(64, true)),
              Field.nullable("price", new ArrowType.Decimal(15, 2, 128)),
              Field.nullable("day", new ArrowType.Date(DateUnit.DAY)),
              Field.nullable("name", ArrowType.Utf8.INSTANCE),
              Field.nullable(
                  "ratio",
                  new ArrowType.FloatingPoint(
                      org.apache.arrow.vector.types.FloatingPointPrecision.DOUBLE)),
              new Field(
                  "at",
                  FieldType.nullable(
                      new ArrowType.Timestamp(
                          org.apache.arrow.vector.types.TimeUnit.MICROSECOND, null)),
                  null)));

  /** Writes three rows (NULLs, dates, decimals, quoting) in {@code format}. */
  private static String write(OutputFormat format, int maxRows) throws Exception {
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator)) {
      root.allocateNew();
      BigIntVector id = (BigIntVector) root.getVector("id");
      DecimalVector price = (DecimalVector) root.getVector("price");
      DateDayVector day = (DateDayVector) root.getVector("day");
      VarCharVector name = (VarCharVector) root.getVector("name");
      Float8Vector ratio = (Float8Vector) root.getVector("ratio");
      TimeStampMicroVector at = (TimeStampMicroVector) root.getVector("at");
      id.setSafe(0, 1);
      price.setSafe(0, new BigDecimal("1E+2").setScale(2));
      day.setSafe(0, (int) LocalDate.of(1995, 3, 15).toEpochDay());
      name.setSafe(0, "plain".getBytes(StandardCharsets.UTF_8));
      ratio.setSafe(0, 0.5);
      at.setSafe(0, 1_500_000L);
      id.setNull(1);
      price.setSafe(1, new BigDecimal("-0.05"));
      day.setNull(1);
      name.setSafe(1, "a,\"b\"".getBytes(StandardCharsets.UTF_8));
      ratio.setNull(1);
      at.setNull(1);
      id.setSafe(2, -7);
      price.setNull(2);
      day.setSafe(2, 0);
      name.setSafe(2, new byte[0]);
      ratio.setSafe(2, -2.25);
      at.setNull(2);
      root.setRowCount(3);

      ByteArrayOutputStream ipc = new ByteArrayOutputStream();
      try (ArrowStreamWriter w = new ArrowStreamWriter(root, null, ipc)) {
        w.start();
        w.writeBatch();
        w.end();
      }
      StringWriter text = new StringWriter();
      try (ArrowStreamReader reader =
          new ArrowStreamReader(new ByteArrayInputStream(ipc.toByteArray()), allocator)) {
        assertThat(format.write(reader, maxRows, new PrintWriter(text))).isEqualTo(3);
      }
      return text.toString();
    }
  }

  @Test
  void csvHasAHeaderThenRowsWithNullsDatesDecimalsAndQuoting() throws Exception {
    assertThat(write(OutputFormat.csv, Integer.MAX_VALUE).split("\\R", -1))
        .containsExactly(
            "id,price,day,name,ratio,at",
            "1,100.00,1995-03-15,plain,0.5,1970-01-01T00:00:01.500",
            ",-0.05,,\"a,\"\"b\"\"\",,",
            "-7,,1970-01-01,\"\",-2.25,",
            "");
  }

  @Test
  void jsonAndJsonLinesParseBackToTheValues() throws Exception {
    ObjectMapper json = new ObjectMapper();
    JsonNode array = json.readTree(write(OutputFormat.json, Integer.MAX_VALUE));
    assertThat(array.isArray()).isTrue();
    assertThat(array).hasSize(3);
    assertThat(array.get(0).get("price").decimalValue()).isEqualByComparingTo("100.00");
    assertThat(array.get(0).get("day").asText()).isEqualTo("1995-03-15");
    assertThat(array.get(1).get("id").isNull()).isTrue();
    assertThat(array.get(1).get("name").asText()).isEqualTo("a,\"b\"");
    assertThat(array.get(2).get("ratio").asDouble()).isEqualTo(-2.25);
    String[] lines = write(OutputFormat.jsonl, 2).strip().split("\n");
    assertThat(lines).hasSize(2);
    assertThat(json.readTree(lines[1]).get("price").decimalValue()).isEqualByComparingTo("-0.05");
    assertThat(json.readTree(write(OutputFormat.json, 0)).size()).isZero();
  }

  @Test
  void markdownIsAPipeTable() throws Exception {
    String[] lines = write(OutputFormat.markdown, Integer.MAX_VALUE).split("\n");
    assertThat(lines[0]).isEqualTo("| id | price | day | name | ratio | at |");
    assertThat(lines[1]).isEqualTo("| --- | --- | --- | --- | --- | --- |");
    assertThat(lines).hasSize(5);
    String[] cells = lines[4].substring(2, lines[4].length() - 2).split(" \\| ", -1);
    assertThat(cells).containsExactly("-7", "NULL", "1970-01-01", "", "-2.25", "NULL");
  }

  @Test
  void tableShowsTheFirstRowsAndCountsAll() throws Exception {
    String text = write(OutputFormat.table, 1);
    assertThat(text)
        .contains("|  1 |")
        .doesNotContain("-7")
        .contains("3 rows (showing first 1 row)");
  }
}
