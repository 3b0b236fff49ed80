package dev.quiver.tests;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;

/**
 * The bounded verification run of the default suite: every TPC-H and corpus query under two of the
 * shapes of {@link VerificationRuns}, rotating so that every shape runs about a sixth of the
 * queries; batch size 1 (slow by design) only on a sixth of them.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class VerificationRunTest {
  private final VerificationRuns runs = new VerificationRuns();

  @AfterAll
  void close() {
    runs.close();
  }

  /** Batch size 1 runs every row through every operator alone: kept for one query in six. */
  private static VerificationRuns.Shape bounded(VerificationRuns.Shape shape, int query) {
    return shape.batchSize() == 1 && query % 6 != 0
        ? new VerificationRuns.Shape(shape.partitions(), 7)
        : shape;
  }

  @TestFactory
  Stream<DynamicTest> rotation() {
    List<VerificationRuns.Query> queries = VerificationRuns.queries();
    List<VerificationRuns.Shape> shapes = VerificationRuns.shapes();
    List<DynamicTest> tests = new ArrayList<>();
    for (int i = 0; i < queries.size(); i++) {
      tests.add(runs.test(queries.get(i), bounded(shapes.get(i % shapes.size()), i), 0));
      tests.add(runs.test(queries.get(i), bounded(shapes.get((i * 7 + 5) % shapes.size()), i), 0));
    }
    return tests.stream();
  }
}
