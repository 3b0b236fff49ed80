package dev.quiver.binding.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.QueryTypeException;
import dev.quiver.binding.SessionContext;
import dev.quiver.binding.SqlParseException;
import dev.quiver.binding.UnknownColumnException;
import dev.quiver.binding.UnknownFunctionException;
import dev.quiver.binding.UnknownTableException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class SqlErrorsTest {
  private SessionContext ctx;

  @BeforeEach
  void setUp() {
    ctx = new SessionContext();
    Tpch.register(ctx);
  }

  @AfterEach
  void tearDown() {
    ctx.close();
  }

  @Test
  void parseErrorCarriesLineAndColumn() {
    assertThatThrownBy(() -> ctx.sql("select n_name,\n  from nation"))
        .isInstanceOfSatisfying(
            SqlParseException.class,
            e -> {
              assertThat(e.line()).isEqualTo(2);
              assertThat(e.column()).isEqualTo(3);
              assertThat(e.getMessage()).contains("line 2, column 3");
            });
  }

  @Test
  void parseErrorInsideCreateViewPointsIntoTheOriginalText() {
    assertThatThrownBy(() -> ctx.sql("create view v as\nselect n_name frm nation"))
        .isInstanceOfSatisfying(
            SqlParseException.class,
            e -> {
              assertThat(e.line()).isEqualTo(2);
              assertThat(e.column()).isEqualTo(19);
            });
  }

  @Test
  void unknownTableSuggestsTheClosestName() {
    assertThatThrownBy(() -> ctx.sql("select * from lineitm"))
        .isInstanceOfSatisfying(
            UnknownTableException.class,
            e -> {
              assertThat(e.table()).isEqualTo("lineitm");
              assertThat(e.getMessage()).contains("did you mean 'lineitem'");
            });
  }

  @Test
  void unknownColumnSuggestsColumnsOfTheQueriedTables() {
    assertThatThrownBy(() -> ctx.sql("select l_quantiy from lineitem"))
        .isInstanceOfSatisfying(
            UnknownColumnException.class,
            e -> {
              assertThat(e.column()).isEqualTo("l_quantiy");
              assertThat(e.getMessage()).contains("'l_quantity'");
            });
  }

  @Test
  void unknownFunctionSuggestsBuiltIns() {
    assertThatThrownBy(() -> ctx.sql("select uper(n_name) from nation"))
        .isInstanceOfSatisfying(
            UnknownFunctionException.class,
            e -> {
              assertThat(e.function()).isEqualTo("uper");
              assertThat(e.getMessage()).contains("'upper'");
            });
  }

  @Test
  void typeErrorIsAQueryTypeException() {
    assertThatThrownBy(() -> ctx.sql("select * from lineitem where l_shipdate = true"))
        .isInstanceOf(QueryTypeException.class)
        .hasMessageContaining("DATE");
  }

  @Test
  void droppingAMissingTableIsAnUnknownTable() {
    assertThatThrownBy(() -> ctx.sql("drop table natoin"))
        .isInstanceOf(UnknownTableException.class)
        .hasMessageContaining("'nation'");
    ctx.sql("drop table if exists natoin");
  }
}
