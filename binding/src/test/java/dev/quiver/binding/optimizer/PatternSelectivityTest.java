package dev.quiver.binding.optimizer;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.calcite.jdbc.JavaTypeFactoryImpl;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.type.SqlTypeName;
import org.junit.jupiter.api.Test;

class PatternSelectivityTest {
  private final JavaTypeFactoryImpl types = new JavaTypeFactoryImpl();
  private final RexBuilder rex = new RexBuilder(types);
  private final RelDataType varchar = types.createSqlType(SqlTypeName.VARCHAR);
  private final RexNode name = rex.makeInputRef(varchar, 0);

  private RexNode like(String pattern) {
    return rex.makeCall(SqlStdOperatorTable.LIKE, name, rex.makeLiteral(pattern));
  }

  @Test
  void containsPatternsAreRarerThanAnchoredOnes() {
    assertThat(PatternSelectivity.like(like("%green%"))).isEqualTo(PatternSelectivity.CONTAINS);
    assertThat(PatternSelectivity.like(like("%special%requests%")))
        .isEqualTo(PatternSelectivity.CONTAINS);
    assertThat(PatternSelectivity.like(like("forest%"))).isEqualTo(PatternSelectivity.ANCHORED);
    assertThat(PatternSelectivity.like(like("%BRASS"))).isEqualTo(PatternSelectivity.ANCHORED);
    assertThat(PatternSelectivity.like(like("exact"))).isEqualTo(PatternSelectivity.ANCHORED);
  }

  @Test
  void otherPredicatesKeepCalcitesGuess() {
    assertThat(PatternSelectivity.like(rex.makeCall(SqlStdOperatorTable.NOT, like("%x%"))))
        .isNull();
    assertThat(PatternSelectivity.like(rex.makeCall(SqlStdOperatorTable.LIKE, name, name)))
        .isNull();
    assertThat(
            PatternSelectivity.like(
                rex.makeCall(SqlStdOperatorTable.EQUALS, name, rex.makeLiteral("green"))))
        .isNull();
  }
}
