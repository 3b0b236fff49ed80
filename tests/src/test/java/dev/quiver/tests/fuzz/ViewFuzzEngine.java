package dev.quiver.tests.fuzz;

import dev.quiver.tests.QueryResult;

/**
 * Runs each query of an engine as a view: {@code CREATE VIEW v AS <query>}, {@code SELECT * FROM
 * v}, then DROP VIEW. A view must answer as its query (issue 38: views were converted with other
 * options than queries).
 */
final class ViewFuzzEngine implements FuzzEngine {
  private static final String VIEW = "fuzz_view";
  final FuzzEngine inner;

  ViewFuzzEngine(FuzzEngine inner) {
    this.inner = inner;
  }

  @Override
  public String name() {
    return inner.name();
  }

  @Override
  public void execute(String sql) {
    inner.execute(sql);
  }

  @Override
  public QueryResult query(String sql) {
    inner.execute("CREATE VIEW " + VIEW + " AS " + sql);
    try {
      return inner.query("SELECT * FROM " + VIEW);
    } finally {
      inner.execute("DROP VIEW " + VIEW);
    }
  }

  @Override
  public void close() {
    inner.close();
  }
}
