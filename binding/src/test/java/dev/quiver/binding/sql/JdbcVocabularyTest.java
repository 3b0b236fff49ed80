package dev.quiver.binding.sql;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.errors.UnknownFunctionException;
import dev.quiver.binding.functions.Group;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Keywords from the parser, functions from the registry, each function callable by its name. */
class JdbcVocabularyTest {
  @Test
  void everyScalarFunctionIsInOneGroupAndSyntaxIsNot() {
    List<String> all = new ArrayList<>();
    for (Group g : Group.values()) {
      all.addAll(JdbcVocabulary.functions(g));
    }
    List<String> scalar = new ArrayList<>();
    for (QuiverFunctions.Function f : QuiverFunctions.SUPPORTED) {
      if (f.kind() == QuiverFunctions.Kind.SCALAR) {
        assertThat(f.group()).as(f.names().toString()).isNotNull();
        scalar.addAll(f.names());
      } else {
        assertThat(f.group()).as(f.names().toString()).isNull();
      }
    }
    assertThat(all).doesNotHaveDuplicates();
    // Written as syntax, not called: JDBC's function lists do not have them.
    assertThat(scalar).containsAll(all).contains("like", "ilike", "similar to", "case");
    assertThat(all).doesNotContain("like", "ilike", "similar to", "case");
    assertThat(JdbcVocabulary.functions(Group.NUMERIC)).contains("abs", "round", "power", "mod");
    assertThat(JdbcVocabulary.functions(Group.STRING))
        .contains("upper", "substring", "replace", "position", "length");
    assertThat(JdbcVocabulary.functions(Group.DATETIME))
        .contains("extract", "date_trunc", "current_date", "localtimestamp");
    assertThat(JdbcVocabulary.functions(Group.SYSTEM)).contains("coalesce", "nullif", "cast");
  }

  @Test
  void listedFunctionsAreKnownToTheValidatorByTheirName() {
    try (SessionContext ctx = new SessionContext()) {
      for (Group g : Group.values()) {
        for (String name : JdbcVocabulary.functions(g)) {
          // A call with no arguments may fail on its arguments, never as an unknown function.
          Throwable error = null;
          try {
            ctx.sql("SELECT " + name + "()").explain();
          } catch (RuntimeException e) {
            error = e;
          }
          assertThat(error instanceof UnknownFunctionException).as(name + ": " + error).isFalse();
        }
      }
    }
  }

  @Test
  void keywordsComeFromTheParser() {
    List<String> keywords = JdbcVocabulary.keywords();
    assertThat(keywords)
        .isNotEmpty()
        .doesNotContain("SELECT", "FROM")
        .allSatisfy(
            k -> {
              assertThat(k).isUpperCase().doesNotContain(",");
            });
  }
}
