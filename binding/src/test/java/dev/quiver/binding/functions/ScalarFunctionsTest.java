package dev.quiver.binding.functions;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.calcite.sql.SqlOperator;
import org.junit.jupiter.api.Test;

/** The registry's definitions agree with themselves; FunctionsTest runs each one's example. */
class ScalarFunctionsTest {
  @Test
  void everyDeclaredOperatorIsCalledByANameOfItsDefinition() {
    for (ScalarFunction f : ScalarFunctions.ALL) {
      for (SqlOperator op : f.operators()) {
        // Otherwise a call would validate and then find no kernel.
        assertThat(f.names())
            .as(f.names().toString())
            .contains(op.getName().toLowerCase(Locale.ROOT));
        assertThat(ScalarFunctions.lookup(op.getName())).isSameAs(f.kernel() == null ? null : f);
      }
    }
  }

  @Test
  void namesAreLowerCaseUniqueAndLookedUpInAnyCase() {
    Set<String> seen = new HashSet<>();
    for (ScalarFunction f : ScalarFunctions.ALL) {
      assertThat(f.example()).as(f.names().toString()).isNotBlank();
      assertThat(f.description()).isNotBlank();
      for (String name : f.names()) {
        assertThat(name).isEqualTo(name.toLowerCase(Locale.ROOT));
        assertThat(seen.add(name)).as(name + " is defined twice").isTrue();
        if (f.kernel() != null) {
          assertThat(ScalarFunctions.lookup(name.toUpperCase(Locale.ROOT))).isSameAs(f);
        }
      }
    }
    assertThat(ScalarFunctions.lookup("no_such_function")).isNull();
    assertThat(ScalarFunctions.names()).contains("upper", "round", "date_trunc", "coalesce");
  }

  @Test
  void sectionsComeInTheirOrder() {
    List<Group> groups = ScalarFunctions.ALL.stream().map(ScalarFunction::group).toList();
    for (int i = 1; i < groups.size(); i++) {
      assertThat(groups.get(i).compareTo(groups.get(i - 1)))
          .as("%s after %s", ScalarFunctions.ALL.get(i).names(), groups.get(i - 1))
          .isNotNegative();
    }
  }
}
