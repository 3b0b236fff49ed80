package dev.quiver.binding.planner;

import dev.quiver.binding.logical.QuiverScan;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.share.SharedSubplanExec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelWriter;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.Window;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.sql.SqlExplainLevel;
import org.apache.calcite.sql.SqlFunction;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.util.Pair;

/**
 * Finds the subplans a query reads more than once, so that they are planned once and computed once
 * ({@link SharedSubplanExec}): a WITH view or view used twice (TPC-H Q15's revenue), a subquery
 * repeated in the text (Q11's, Q02's). Views and WITH items are expanded where they are used, so
 * the copies are found by a structural digest of the optimized logical plan: each node's type, row
 * type and attributes as EXPLAIN prints them, the tables of its scans (by identity) and its inputs'
 * digests, as Calcite's RelNode digest identifies equivalent nodes.
 *
 * <p>Only subplans worth holding are shared: deterministic ones (a random value or a user function
 * is computed by each copy, as DuckDB does for a view or a repeated subquery; functions of the
 * query's time, such as now(), are one value per query) that hold a join, aggregate or window;
 * scans and filters read again cost less than rows kept in memory.
 */
final class SharedSubplans {
  /** No sharing (the setting is off). */
  static final SharedSubplans NONE = new SharedSubplans();

  private final Map<RelNode, String> digests = new IdentityHashMap<>();
  private final Map<RelNode, Boolean> shareable = new IdentityHashMap<>();
  private final Map<Object, Integer> tables = new IdentityHashMap<>();
  private final Map<String, Integer> references = new HashMap<>();
  private final Map<String, ExecutionPlan> planned = new HashMap<>();

  private SharedSubplans() {}

  /** The subplans of {@code root} read more than once. */
  static SharedSubplans of(RelNode root) {
    SharedSubplans s = new SharedSubplans();
    s.count(root);
    return s;
  }

  /**
   * Counts each shareable subplan's readers: a copy inside a copy counts once, since the outer
   * copy, computed once, computes it once.
   */
  private void count(RelNode rel) {
    if (isShareable(rel) && references.merge(digest(rel), 1, Integer::sum) > 1) {
      return;
    }
    for (RelNode input : rel.getInputs()) {
      count(input);
    }
  }

  /**
   * {@code rel} planned by {@code planner}, or, when the query reads it more than once, the one
   * shared node planned for all its copies.
   */
  ExecutionPlan plan(RelNode rel, Supplier<ExecutionPlan> planner) {
    if (!isShared(rel)) {
      return planner.get();
    }
    String digest = digest(rel);
    ExecutionPlan done = planned.get(digest);
    if (done == null) {
      // The readers are counted again once the plan is final (finish), where rules may have
      // copied them.
      done = new SharedSubplanExec(planner.get(), 2, 0);
      planned.put(digest, done);
    }
    return done;
  }

  /**
   * Whether the query reads {@code rel} more than once: then it must be planned through {@link
   * #plan}, not fused into its parent, or its inputs would be read once more than counted.
   */
  boolean isShared(RelNode rel) {
    return !references.isEmpty() && isShareable(rel) && references.getOrDefault(digest(rel), 0) > 1;
  }

  /**
   * The plan with each shared node readers-counted and numbered, and the shared nodes that only one
   * parent reads (a rule rebuilt the others' parents with a copy) replaced by their input.
   */
  static ExecutionPlan finish(ExecutionPlan root) {
    Map<ExecutionPlan, Integer> readers = new IdentityHashMap<>();
    countReaders(root, readers);
    if (readers.isEmpty()) {
      return root;
    }
    return rebuild(root, readers, new IdentityHashMap<>(), new int[] {0});
  }

  private static void countReaders(ExecutionPlan plan, Map<ExecutionPlan, Integer> readers) {
    for (ExecutionPlan child : plan.children()) {
      if (child instanceof SharedSubplanExec && readers.merge(child, 1, Integer::sum) > 1) {
        continue;
      }
      countReaders(child, readers);
    }
  }

  private static ExecutionPlan rebuild(
      ExecutionPlan plan,
      Map<ExecutionPlan, Integer> readers,
      Map<ExecutionPlan, ExecutionPlan> rebuilt,
      int[] ids) {
    ExecutionPlan done = rebuilt.get(plan);
    if (done != null) {
      return done;
    }
    List<ExecutionPlan> children = new ArrayList<>();
    boolean changed = false;
    for (ExecutionPlan child : plan.children()) {
      ExecutionPlan c = rebuild(child, readers, rebuilt, ids);
      changed |= c != child;
      children.add(c);
    }
    if (plan instanceof SharedSubplanExec) {
      int n = readers.getOrDefault(plan, 1);
      done = n > 1 ? new SharedSubplanExec(children.get(0), n, ++ids[0]) : children.get(0);
    } else {
      done = changed ? plan.withNewChildren(children) : plan;
    }
    rebuilt.put(plan, done);
    return done;
  }

  private boolean isShareable(RelNode rel) {
    return shareable.computeIfAbsent(rel, r -> heavy(r) && deterministicSubtree(r));
  }

  private static boolean heavy(RelNode rel) {
    if (rel instanceof Aggregate || rel instanceof Join || rel instanceof Window) {
      return true;
    }
    for (RelNode input : rel.getInputs()) {
      if (heavy(input)) {
        return true;
      }
    }
    return false;
  }

  private static boolean deterministicSubtree(RelNode rel) {
    if (!deterministic(rel)) {
      return false;
    }
    for (RelNode input : rel.getInputs()) {
      if (!deterministicSubtree(input)) {
        return false;
      }
    }
    return true;
  }

  /** Whether {@code rel}'s own expressions give the same values however often it runs. */
  private static boolean deterministic(RelNode rel) {
    VolatileCalls finder = new VolatileCalls();
    rel.accept(finder);
    if (rel instanceof QuiverScan scan) {
      for (RexNode filter : scan.filters()) {
        filter.accept(finder);
      }
    }
    return !finder.found;
  }

  /** Finds a call whose value may differ between two evaluations in one query. */
  private static final class VolatileCalls extends RexShuttle {
    boolean found;

    @Override
    public RexNode visitCall(RexCall call) {
      SqlOperator op = call.getOperator();
      if (!op.isDeterministic() && !op.isDynamicFunction()
          || op instanceof SqlFunction f
              && f.getFunctionType() == SqlFunctionCategory.USER_DEFINED_FUNCTION) {
        found = true;
        return call;
      }
      return super.visitCall(call);
    }
  }

  private String digest(RelNode rel) {
    String known = digests.get(rel);
    if (known != null) {
      return known;
    }
    Digest writer = new Digest();
    rel.explain(writer);
    StringBuilder sb = new StringBuilder(writer.text);
    sb.append(" : ").append(rel.getRowType().getFullTypeString());
    if (rel instanceof QuiverScan scan) {
      // Two tables of one statement may print alike (files read by a table function).
      Object table = scan.providerTable().provider();
      sb.append(" table#").append(tables.computeIfAbsent(table, t -> tables.size()));
    }
    sb.append(" (");
    for (RelNode input : rel.getInputs()) {
      sb.append(digest(input)).append(", ");
    }
    String digest = sb.append(')').toString();
    digests.put(rel, digest);
    return digest;
  }

  /** Collects a node's own attributes as EXPLAIN prints them, without its inputs. */
  private static final class Digest implements RelWriter {
    private final List<Pair<String, Object>> items = new ArrayList<>();
    String text = "";

    @Override
    public void explain(RelNode rel, List<Pair<String, Object>> values) {
      throw new UnsupportedOperationException();
    }

    @Override
    public SqlExplainLevel getDetailLevel() {
      return SqlExplainLevel.DIGEST_ATTRIBUTES;
    }

    @Override
    public RelWriter item(String term, Object value) {
      if (!(value instanceof RelNode)) {
        items.add(Pair.of(term, value));
      }
      return this;
    }

    @Override
    public RelWriter done(RelNode node) {
      StringBuilder sb = new StringBuilder(node.getRelTypeName()).append('(');
      for (Pair<String, Object> item : items) {
        sb.append(item.left).append('=').append(item.right).append(", ");
      }
      text = sb.append(')').toString();
      return this;
    }
  }
}
