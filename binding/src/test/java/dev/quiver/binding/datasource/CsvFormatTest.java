package dev.quiver.binding.datasource;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class CsvFormatTest {
  @Test
  void rendersEveryTypeAsCsvText() {
    try (BufferAllocator allocator = new RootAllocator();
        DecimalVector dec = new DecimalVector("d", allocator, 38, 2);
        DateDayVector day = new DateDayVector("day", allocator);
        TimeStampMicroVector ts = new TimeStampMicroVector("ts", allocator);
        VarCharVector txt = new VarCharVector("t", allocator);
        BitVector flag = new BitVector("b", allocator);
        Float8Vector dbl = new Float8Vector("f", allocator);
        IntVector num = new IntVector("i", allocator)) {
      dec.allocateNew(3);
      dec.set(0, new BigDecimal("12.50"));
      dec.set(1, new BigDecimal("-123456789012345678901234567890.01"));
      dec.setNull(2);
      assertThat(CsvFormat.render(dec, 0)).isEqualTo("12.50");
      assertThat(CsvFormat.render(dec, 1)).isEqualTo("-123456789012345678901234567890.01");
      assertThat(CsvFormat.render(dec, 2)).isEmpty();

      day.allocateNew(2);
      day.set(0, (int) java.time.LocalDate.of(2024, 2, 29).toEpochDay());
      day.set(1, -1);
      assertThat(CsvFormat.render(day, 0)).isEqualTo("2024-02-29");
      assertThat(CsvFormat.render(day, 1)).isEqualTo("1969-12-31");

      ts.allocateNew(3);
      long base =
          java.time.LocalDateTime.of(2024, 2, 29, 13, 14, 15)
                  .toEpochSecond(java.time.ZoneOffset.UTC)
              * 1_000_000L;
      ts.set(0, base);
      ts.set(1, base + 500_000);
      ts.set(2, -1);
      assertThat(CsvFormat.render(ts, 0)).isEqualTo("2024-02-29 13:14:15");
      assertThat(CsvFormat.render(ts, 1)).isEqualTo("2024-02-29 13:14:15.5");
      assertThat(CsvFormat.render(ts, 2)).isEqualTo("1969-12-31 23:59:59.999999");

      txt.allocateNew(4);
      txt.set(0, "plain".getBytes(StandardCharsets.UTF_8));
      txt.set(1, "a,\"b\"\nc".getBytes(StandardCharsets.UTF_8));
      txt.set(2, new byte[0]);
      txt.setNull(3);
      assertThat(CsvFormat.render(txt, 0)).isEqualTo("plain");
      assertThat(CsvFormat.render(txt, 1)).isEqualTo("\"a,\"\"b\"\"\nc\"");
      assertThat(CsvFormat.render(txt, 2)).isEqualTo("\"\"");
      assertThat(CsvFormat.render(txt, 3)).isEmpty();

      flag.allocateNew(2);
      flag.set(0, 1);
      flag.set(1, 0);
      dbl.allocateNew(1);
      dbl.set(0, 0.1);
      num.allocateNew(1);
      num.set(0, -42);
      assertThat(CsvFormat.render(flag, 0)).isEqualTo("true");
      assertThat(CsvFormat.render(flag, 1)).isEqualTo("false");
      assertThat(CsvFormat.render(dbl, 0)).isEqualTo("0.1");
      assertThat(CsvFormat.render(num, 0)).isEqualTo("-42");
    }
  }

  @Test
  void quotesHeaderNamesThatNeedIt() {
    Schema schema =
        new Schema(
            List.of(
                ScanTestSupport.field("a", ArrowType.Utf8.INSTANCE),
                ScanTestSupport.field("b;c", ArrowType.Utf8.INSTANCE)));
    assertThat(CsvFormat.header(schema, ',')).isEqualTo("a,b;c");
    assertThat(CsvFormat.header(schema, ';')).isEqualTo("a;\"b;c\"");
  }
}
