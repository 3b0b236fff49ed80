package dev.quiver.binding.optimizer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.calcite.adapter.java.JavaTypeFactory;
import org.apache.calcite.jdbc.JavaTypeFactoryImpl;
import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelOptPredicateList;
import org.apache.calcite.plan.hep.HepPlanner;
import org.apache.calcite.plan.hep.HepProgram;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.logical.LogicalFilter;
import org.apache.calcite.rel.logical.LogicalValues;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.type.SqlTypeName;
import org.junit.jupiter.api.Test;

class SubQueryFreePredicatesTest {
  private final JavaTypeFactory types = new JavaTypeFactoryImpl();
  private final RexBuilder rex = new RexBuilder(types);
  private final RelOptCluster cluster =
      RelOptCluster.create(new HepPlanner(HepProgram.builder().build()), rex);

  @Test
  void aComparisonWithANullLiteralIsNoPredicate() {
    // Fuzz seed 20260312: a filter that kept x = NULL failed planning with Calcite's assertion
    // "Comparison with NULL in pulledUpPredicates" (NotNullEqualsNull asks for the predicates).
    cluster.setMetadataProvider(QuiverMetadata.PROVIDER);
    RelDataType integer =
        types.createTypeWithNullability(types.createSqlType(SqlTypeName.INTEGER), true);
    RelNode values = LogicalValues.createOneRow(cluster);
    RexNode x = rex.makeCast(integer, rex.makeInputRef(values, 0));
    RelNode project =
        org.apache.calcite.rel.logical.LogicalProject.create(
            values, List.of(), List.of(x), List.of("x"), java.util.Set.of());
    RexNode isNull =
        rex.makeCall(
            SqlStdOperatorTable.EQUALS, rex.makeInputRef(project, 0), rex.makeNullLiteral(integer));
    RexNode positive =
        rex.makeCall(
            SqlStdOperatorTable.GREATER_THAN,
            rex.makeInputRef(project, 0),
            rex.makeExactLiteral(java.math.BigDecimal.ONE, integer));
    RelNode filter =
        LogicalFilter.create(project, rex.makeCall(SqlStdOperatorTable.AND, isNull, positive));
    RelOptPredicateList predicates = cluster.getMetadataQuery().getPulledUpPredicates(filter);
    assertThat(predicates.pulledUpPredicates).containsExactly(positive);
  }
}
