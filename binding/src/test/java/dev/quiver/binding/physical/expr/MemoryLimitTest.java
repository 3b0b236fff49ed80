package dev.quiver.binding.physical.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.errors.ResourcesExhaustedException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class MemoryLimitTest extends ExprTestSupport {

  @Test
  void allocatorLimitsBecomeResourcesExhausted() {
    Object[] values = new Object[2000];
    for (int i = 0; i < values.length; i++) {
      values[i] = "some fairly long string value number " + i;
    }
    VectorSchemaRoot b = batch(col("s", UTF8, values));
    try (BufferAllocator small = allocator.newChildAllocator("small", 0, 16 * 1024)) {
      StringFunctionExpr upper =
          new StringFunctionExpr(StringFunctionExpr.Fn.UPPER, List.of(column(b, 0)), UTF8);
      assertThatThrownBy(() -> upper.evaluate(b, small).close())
          .isInstanceOf(ResourcesExhaustedException.class)
          .hasMessageContaining("memory");
      StringFunctionExpr concat =
          new StringFunctionExpr(
              StringFunctionExpr.Fn.CONCAT, List.of(column(b, 0), lit("!", UTF8)), UTF8);
      assertThatThrownBy(() -> concat.evaluate(b, small).close())
          .isInstanceOf(ResourcesExhaustedException.class);
      assertThatThrownBy(
              () ->
                  new ArithmeticExpr(
                          ArithmeticExpr.Op.ADD, lit(1L, BIGINT), lit(2L, BIGINT), BIGINT)
                      .evaluate(rows(100_000), small)
                      .close())
          .isInstanceOf(ResourcesExhaustedException.class);
      assertThat(small.getAllocatedMemory()).isZero();
    }
  }
}
