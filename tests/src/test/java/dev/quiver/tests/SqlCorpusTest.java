package dev.quiver.tests;

import java.nio.file.Path;

/** The SQL corpus on the single-process binding with 4 partitions, against DuckDB. */
class SqlCorpusTest extends CorpusTestBase {
  @Override
  RowEngine openActual(Path dir) {
    return Differential.actual(dir, 4);
  }
}
