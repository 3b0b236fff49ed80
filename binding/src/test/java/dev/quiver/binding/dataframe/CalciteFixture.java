package dev.quiver.binding.dataframe;

import java.util.List;
import org.apache.calcite.avatica.util.Casing;
import org.apache.calcite.plan.Context;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.schema.SchemaPlus;
import org.apache.calcite.schema.impl.AbstractTable;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.parser.SqlParser;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.tools.FrameworkConfig;
import org.apache.calcite.tools.Frameworks;
import org.apache.calcite.tools.Planner;
import org.apache.calcite.tools.RelBuilder;

/** A small Calcite schema (tables T and U) with a RelBuilder and a SQL planner over it. */
final class CalciteFixture {
  final FrameworkConfig config;
  final RelBuilder b;

  CalciteFixture() {
    this(null);
  }

  CalciteFixture(Context context) {
    SchemaPlus root = Frameworks.createRootSchema(true);
    root.add(
        "T",
        new AbstractTable() {
          @Override
          public RelDataType getRowType(RelDataTypeFactory f) {
            return f.builder()
                .add("a", SqlTypeName.INTEGER)
                .nullable(true)
                .add("b", SqlTypeName.BIGINT)
                .nullable(true)
                .add("d", SqlTypeName.DATE)
                .nullable(true)
                .add("s", SqlTypeName.VARCHAR)
                .nullable(true)
                .add("p", f.createSqlType(SqlTypeName.DECIMAL, 15, 2))
                .nullable(true)
                .add("f", SqlTypeName.DOUBLE)
                .nullable(true)
                .build();
          }
        });
    root.add(
        "U",
        new AbstractTable() {
          @Override
          public RelDataType getRowType(RelDataTypeFactory f) {
            return f.builder()
                .add("k", SqlTypeName.INTEGER)
                .add("s", SqlTypeName.VARCHAR)
                .nullable(true)
                .add("v", SqlTypeName.DOUBLE)
                .nullable(true)
                .build();
          }
        });
    Frameworks.ConfigBuilder cb =
        Frameworks.newConfigBuilder()
            .defaultSchema(root)
            .parserConfig(
                SqlParser.config().withCaseSensitive(false).withUnquotedCasing(Casing.UNCHANGED));
    if (context != null) {
      cb.context(context);
    }
    config = cb.build();
    b = RelBuilder.create(config);
  }

  RelNode scan(String table) {
    return b.scan(table).build();
  }

  /** The logical plan of a SQL query over the same schema, as SqlToRelConverter builds it. */
  RelNode sql(String sql) {
    Planner p = Frameworks.getPlanner(config);
    try {
      SqlNode n = p.validate(p.parse(sql));
      return p.rel(n).project();
    } catch (Exception e) {
      throw new AssertionError(e);
    } finally {
      p.close();
    }
  }

  /** The projected expressions of a Project, as text. */
  static List<String> projects(RelNode rel) {
    return ((Project) rel).getProjects().stream().map(Object::toString).toList();
  }

  static String plan(RelNode rel) {
    return RelOptUtil.toString(rel).trim();
  }
}
