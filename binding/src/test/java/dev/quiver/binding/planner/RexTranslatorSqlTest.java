package dev.quiver.binding.planner;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.logical.TypeMapping;
import dev.quiver.binding.physical.expr.ExprTestSupport;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.schema.SchemaPlus;
import org.apache.calcite.schema.impl.AbstractTable;
import org.apache.calcite.sql.parser.SqlParser;
import org.apache.calcite.tools.FrameworkConfig;
import org.apache.calcite.tools.Frameworks;
import org.apache.calcite.tools.Planner;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Expressions as Calcite's SQL-to-rel conversion produces them, translated and evaluated. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RexTranslatorSqlTest extends ExprTestSupport {
  private VectorSchemaRoot batch;

  @BeforeEach
  void setUp() {
    batch =
        batch(
            col("qty", INT, 10L, 0L, null),
            col("price", decimal(12, 2), new BigDecimal("100.00"), new BigDecimal("20.50"), null),
            col(
                "disc",
                decimal(12, 2),
                new BigDecimal("0.10"),
                new BigDecimal("0.06"),
                new BigDecimal("0.05")),
            col("mode", UTF8, "MAIL", "SHIP", null),
            col(
                "ship",
                DATE,
                LocalDate.of(1998, 9, 2),
                LocalDate.of(1996, 1, 31),
                LocalDate.of(1994, 12, 31)),
            col("ts", TIMESTAMP, 0L, 86_400_000_000L + 3_600_000_000L, null));
  }

  private List<Object> sql(String expr) {
    Schema schema = batch.getSchema();
    SchemaPlus root = Frameworks.createRootSchema(true);
    root.add(
        "t",
        new AbstractTable() {
          @Override
          public RelDataType getRowType(RelDataTypeFactory typeFactory) {
            return TypeMapping.toRelRowType(schema, typeFactory);
          }
        });
    FrameworkConfig config =
        Frameworks.newConfigBuilder()
            .defaultSchema(root)
            .parserConfig(SqlParser.config().withCaseSensitive(false))
            .build();
    try (Planner planner = Frameworks.getPlanner(config)) {
      RelNode rel =
          planner.rel(planner.validate(planner.parse("select " + expr + " from t"))).project();
      Project project = (Project) rel;
      RexNode node = project.getProjects().get(0);
      PhysicalExpr e =
          new RexTranslator(name -> null).translate(node, project.getInput().getRowType());
      assertThat(e.dataType())
          .as(RelOptUtil.toString(rel))
          .isEqualTo(TypeMapping.toArrow(node.getType()));
      return eval(e, batch);
    } catch (Exception e) {
      throw new AssertionError(expr + ": " + e, e);
    }
  }

  @Test
  void tpchStyleArithmeticAndPredicates() {
    assertThat(sql("price * (1 - disc)"))
        .isEqualTo(list(new BigDecimal("90.0000"), new BigDecimal("19.2700"), null));
    assertThat(sql("disc between 0.05 and 0.07")).isEqualTo(list(false, true, true));
    assertThat(sql("mode in ('MAIL', 'AIR')")).isEqualTo(list(true, false, null));
    assertThat(sql("mode not in ('MAIL', 'AIR', 'TRUCK')")).isEqualTo(list(false, true, null));
    assertThat(sql("qty < 24 and mode like 'S%'")).isEqualTo(list(false, true, null));
    assertThat(sql("case when mode = 'MAIL' then price else 0 end"))
        .isEqualTo(list(new BigDecimal("100.00"), new BigDecimal("0.00"), new BigDecimal("0.00")));
    assertThat(sql("coalesce(qty, -1) + 1")).isEqualTo(list(11L, 1L, 0L));
    assertThat(sql("qty / 3")).isEqualTo(list(3L, 0L, null));
    assertThat(sql("nullif(qty, 0)")).isEqualTo(list(10L, null, null));
  }

  @Test
  void datesAndIntervals() {
    assertThat(sql("ship <= date '1998-12-01' - interval '90' day"))
        .isEqualTo(list(true, true, true));
    assertThat(sql("ship + interval '1' month"))
        .isEqualTo(
            list(LocalDate.of(1998, 10, 2), LocalDate.of(1996, 2, 29), LocalDate.of(1995, 1, 31)));
    assertThat(sql("ship < date '1995-01-01' + interval '1' year"))
        .isEqualTo(list(false, false, true));
    assertThat(sql("extract(year from ship)")).isEqualTo(list(1998L, 1996L, 1994L));
    assertThat(sql("extract(month from ship)")).isEqualTo(list(9L, 1L, 12L));
    assertThat(sql("extract(hour from ts)")).isEqualTo(list(0L, 1L, null));
    assertThat(sql("floor(ship to month)"))
        .isEqualTo(
            list(LocalDate.of(1998, 9, 1), LocalDate.of(1996, 1, 1), LocalDate.of(1994, 12, 1)));
    assertThat(sql("cast(ship as timestamp) < ts")).isEqualTo(list(false, false, null));
  }

  @Test
  void stringFunctions() {
    assertThat(sql("substring(mode from 2 for 2)")).isEqualTo(list("AI", "HI", null));
    assertThat(sql("upper(lower(mode)) || '-' || trim(' x ')"))
        .isEqualTo(list("MAIL-x", "SHIP-x", null));
    assertThat(sql("char_length(mode)")).isEqualTo(list(4L, 4L, null));
    assertThat(sql("position('I' in mode)")).isEqualTo(list(3L, 3L, null));
    assertThat(sql("trim(leading 'M' from mode)")).isEqualTo(list("AIL", "SHIP", null));
    assertThat(sql("cast(qty as varchar)")).isEqualTo(list("10", "0", null));
  }

  @Test
  void mathAndCasts() {
    assertThat(sql("round(price, 0)"))
        .isEqualTo(list(new BigDecimal("100.00"), new BigDecimal("21.00"), null));
    assertThat(sql("cast(price / 3 as decimal(10, 2))"))
        .isEqualTo(list(new BigDecimal("33.33"), new BigDecimal("6.83"), null));
    assertThat(sql("abs(-qty)")).isEqualTo(list(10L, 0L, null));
    assertThat(sql("mod(qty, 4)")).isEqualTo(list(2L, 0L, null));
    assertThat(sql("cast(price as integer)")).isEqualTo(list(100L, 21L, null));
    assertThat(sql("cast('12.5' as double) * 2")).isEqualTo(list(25.0, 25.0, 25.0));
    assertThat(sql("qty is not distinct from 0")).isEqualTo(list(false, true, false));
    assertThat(sql("(qty > 5) is not true")).isEqualTo(list(false, true, true));
  }
}
