package dev.quiver.tests;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;

/**
 * The full verification run: every TPC-H and corpus query under every shape of {@link
 * VerificationRuns}, {@code -Dverify.repeats=N} times (default 2). Tagged slow: run it with {@code
 * mvn -B -ntp -pl tests -am verify -Dexcluded.test.groups=none -Dtest=VerificationRunSlowTest
 * -Dsurefire.failIfNoSpecifiedTests=false} before resolving anything that touches planning or
 * operators.
 */
@Tag("slow")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class VerificationRunSlowTest {
  private final VerificationRuns runs = new VerificationRuns();

  @AfterAll
  void close() {
    runs.close();
  }

  @TestFactory
  Stream<DynamicTest> everyQueryUnderEveryShape() {
    int repeats = Integer.getInteger("verify.repeats", 2);
    List<DynamicTest> tests = new ArrayList<>();
    for (int run = 0; run < repeats; run++) {
      for (VerificationRuns.Shape shape : VerificationRuns.shapes()) {
        for (VerificationRuns.Query q : VerificationRuns.queries()) {
          tests.add(runs.test(q, shape, run));
        }
      }
    }
    return tests.stream();
  }
}
