package dev.quiver.binding.sql;

import dev.quiver.binding.dataframe.DataFrame;
import dev.quiver.binding.errors.InternalException;
import dev.quiver.binding.errors.QueryTooComplexException;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.logical.LogicalPlan;
import dev.quiver.binding.logical.RelLogicalPlan;
import dev.quiver.binding.optimizer.QuiverMetadata;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.PhysicalOptimizerRule;
import dev.quiver.binding.planner.ConstantFolder;
import dev.quiver.binding.planner.DefaultQueryPlanner;
import dev.quiver.binding.planner.PlanningContext;
import dev.quiver.binding.planner.QueryPlanner;
import dev.quiver.binding.settings.BindingSettings;
import dev.quiver.binding.settings.SessionConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.calcite.adapter.java.JavaTypeFactory;
import org.apache.calcite.jdbc.JavaTypeFactoryImpl;
import org.apache.calcite.plan.ConventionTraitDef;
import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.volcano.VolcanoPlanner;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rex.RexBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything one session shares between its statements and DataFrames: settings, catalog, Calcite
 * cluster, allocator, thread pool, planner and rules, and the queries running now.
 */
public final class SessionState implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SessionState.class);

  /** The process-wide root allocator; sessions and queries are its children. */
  private static final BufferAllocator ROOT = new RootAllocator(Long.MAX_VALUE);

  private static final AtomicLong SESSION_IDS = new AtomicLong();
  private static final AtomicLong QUERY_IDS = new AtomicLong();

  private final String id;
  private final SessionConfig config;
  private final BufferAllocator allocator;
  private final ExecutorService executor;
  private final Catalog catalog;

  /** The session that owns the catalog (this one, or the one this session shares it with). */
  private final SessionState catalogOwner;

  private final SqlPipeline pipeline;
  private final List<PhysicalOptimizerRule> rules = new CopyOnWriteArrayList<>();
  private final Set<QueryExecution> running = ConcurrentHashMap.newKeySet();
  private volatile QueryPlanner planner = new DefaultQueryPlanner();
  private volatile boolean closed;
  private boolean allocatorClosed;
  private final Set<Thread> metadataThreads =
      java.util.Collections.newSetFromMap(new java.util.WeakHashMap<>());

  static {
    // Load the Calcite settings (Unicode literals) before any other Calcite class.
    SqlPipeline.PARSER_CONFIG.getClass();
  }

  /** Creates a session's state with its own catalog, child allocator and thread pool. */
  public SessionState(SessionConfig config) {
    this(config, null);
  }

  /**
   * Creates a session's state that shares the catalog (tables, views, UDFs) of {@code shared} and
   * starts with its planner and rules, but has its own settings, allocator, thread pool and
   * queries. Tables created by DDL in either belong to {@code shared}'s owner and are closed with
   * it.
   */
  public SessionState(SessionConfig config, SessionState shared) {
    this.id = "session-" + SESSION_IDS.incrementAndGet();
    this.config = config;
    if (shared == null) {
      this.catalog = new Catalog();
      this.catalogOwner = this;
    } else {
      shared.checkOpen();
      this.catalogOwner = shared.catalogOwner;
      this.catalog = shared.catalog;
      this.planner = shared.planner;
      this.rules.addAll(shared.rules);
    }
    this.allocator = ROOT.newChildAllocator(id, 0, Long.MAX_VALUE);
    this.executor = Executors.newCachedThreadPool(daemonThreads(id));
    JavaTypeFactory typeFactory = new JavaTypeFactoryImpl(QuiverTypeSystem.INSTANCE);
    VolcanoPlanner volcano = new VolcanoPlanner();
    volcano.addRelTraitDef(ConventionTraitDef.INSTANCE);
    volcano.setExecutor(new ConstantFolder(allocator));
    RelOptCluster cluster = RelOptCluster.create(volcano, new RexBuilder(typeFactory));
    this.pipeline =
        new SqlPipeline(
            catalog,
            typeFactory,
            cluster,
            () -> "null".equals(config.get(BindingSettings.DIVISION_BY_ZERO)),
            () ->
                (config.get(BindingSettings.SHARED_JOIN_MARKS) && planner.runsInOneProcess(config))
                    || config.get(BindingSettings.MERGED_JOIN_MARKS));
    this.pipeline.readFilesWith(this::config);
  }

  private static ThreadFactory daemonThreads(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, "quiver-" + prefix + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  /** The process-wide root allocator. */
  public static BufferAllocator rootAllocator() {
    return ROOT;
  }

  /** Session identifier, used in allocator and thread names. */
  public String id() {
    return id;
  }

  /** The live settings. */
  public SessionConfig config() {
    return config;
  }

  /** The session allocator; collected results live here. */
  public BufferAllocator allocator() {
    return allocator;
  }

  /**
   * The allocator of tables the session creates (CREATE TABLE, CREATE TABLE AS, registered
   * batches): the catalog owner's, so that a table outlives the session that created it when the
   * catalog is shared.
   */
  public BufferAllocator tableAllocator() {
    return catalogOwner.allocator;
  }

  /** Whether this session shares another session's catalog (and so leaves it open on close). */
  public boolean sharesCatalog() {
    return catalogOwner != this;
  }

  /** Pool for operators' background producers. */
  public ExecutorService executor() {
    return executor;
  }

  /** Tables, views and UDFs. */
  public Catalog catalog() {
    return catalog;
  }

  /** The Calcite pipeline; use only inside {@link #planning}. */
  public SqlPipeline pipeline() {
    return pipeline;
  }

  /** Runs Calcite work under the session lock (Calcite's planner objects are not thread-safe). */
  public synchronized <T> T planning(Supplier<T> work) {
    checkOpen();
    // Calcite keeps the metadata handlers in a thread-local; install ours on this thread.
    RelOptCluster cluster = pipeline.cluster();
    if (cluster.getMetadataProvider() != QuiverMetadata.PROVIDER
        || !metadataThreads.contains(Thread.currentThread())) {
      cluster.setMetadataProvider(QuiverMetadata.PROVIDER);
      cluster.invalidateMetadataQuery();
      metadataThreads.add(Thread.currentThread());
    }
    try {
      return work.get();
    } catch (StackOverflowError e) {
      // SqlShape keeps SQL within bounds; a plan built otherwise (e.g. DataFrame expressions
      // nested thousands deep) can still overflow Calcite's recursion.
      throw new QueryTooComplexException(
          "Query too deeply nested for the planner (its stack overflowed while planning);"
              + " flatten the expression or split the query",
          e);
    } catch (QuiverException e) {
      throw e;
    } catch (AssertionError | RuntimeException e) {
      // Calcite signals broken internal invariants with AssertionError (and its unchecked
      // exceptions); no input may surface them raw.
      InternalException internal =
          new InternalException(
              "Quiver could not plan this query: the SQL planner failed an internal check ("
                  + InternalException.describe(e)
                  + "); this is a bug in Quiver, please report it with the query (the stack"
                  + " trace is in the log)",
              null,
              e);
      LOG.error("{}", internal.getMessage(), e);
      throw internal;
    }
  }

  /** The planner queries use. */
  public QueryPlanner planner() {
    return planner;
  }

  /** Replaces the planner. */
  public void planner(QueryPlanner planner) {
    this.planner = planner;
  }

  /** Installed physical optimizer rules (live list). */
  public List<PhysicalOptimizerRule> rules() {
    return rules;
  }

  /** New DataFrame over a logical tree of this session. */
  public DataFrame dataFrame(RelNode rel) {
    return new DataFrameImpl(this, rel);
  }

  /** A DataFrame scanning table or view {@code name}. */
  public DataFrame tableFrame(String name) {
    return dataFrame(planning(() -> pipeline.relBuilder().scan(Catalog.key(name)).build()));
  }

  /** Registers a DataFrame of this session as a view; returns the entry it replaced, if any. */
  public Object registerView(String name, DataFrame view) {
    if (!(view instanceof DataFrameImpl df) || df.session() != this) {
      throw new QuiverException("registerView needs a DataFrame made by this session");
    }
    RelNode rel = df.rel();
    return catalog.putView(new Catalog.ViewEntry(name, null, rel, rel.getRowType()));
  }

  /** Optimizes a tree into the logical plan the planner consumes. */
  public LogicalPlan logicalPlan(RelNode rel) {
    return planning(() -> new RelLogicalPlan(pipeline.optimize(rel), catalog::udf));
  }

  /** Plans a tree physically with the session's current planner and rules. */
  public ExecutionPlan physicalPlan(LogicalPlan logical) {
    return physicalPlan(logical, plan -> plan);
  }

  /**
   * Plans a tree physically, {@code finish} over the result where the rows are computed ({@link
   * PlanningContext#finish}).
   */
  ExecutionPlan physicalPlan(LogicalPlan logical, UnaryOperator<ExecutionPlan> finish) {
    SessionConfig snapshot = config.copy();
    List<PhysicalOptimizerRule> snapshotRules = List.copyOf(rules);
    PlanningContext context =
        new PlanningContext() {
          @Override
          public SessionConfig config() {
            return snapshot;
          }

          @Override
          public List<PhysicalOptimizerRule> physicalOptimizerRules() {
            return snapshotRules;
          }

          @Override
          public ExecutionPlan finish(ExecutionPlan plan) {
            return finish.apply(plan);
          }
        };
    return planning(() -> planner.createPhysicalPlan(logical, context));
  }

  /** Starts executing a physical plan; the caller closes the execution. */
  public QueryExecution execute(ExecutionPlan plan) {
    checkOpen();
    QueryExecution q = new QueryExecution(this, "query-" + QUERY_IDS.incrementAndGet(), plan);
    running.add(q);
    return q;
  }

  void finished(QueryExecution q) {
    running.remove(q);
  }

  private void checkOpen() {
    if (closed) {
      throw new QuiverException("Session " + id + " is closed; create a new SessionContext");
    }
  }

  /**
   * Cancels running queries, closes session-owned tables, the pool and the allocator. If results
   * still hold session memory the allocator stays open and this throws; close the results and call
   * it again.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      closeAllocator();
      return;
    }
    closed = true;
    List<RuntimeException> errors = new ArrayList<>();
    for (QueryExecution q : List.copyOf(running)) {
      try {
        q.cancel("session closed");
        q.close();
      } catch (RuntimeException e) {
        errors.add(e);
      }
    }
    List<Catalog.TableEntry> owned = sharesCatalog() ? List.of() : catalog.clear();
    for (Catalog.TableEntry e : owned) {
      if (e.owned() && e.provider() instanceof AutoCloseable c) {
        try {
          c.close();
        } catch (Exception ex) {
          errors.add(new QuiverException("Closing table " + e.name() + " failed", ex));
        }
      }
    }
    executor.shutdownNow();
    try {
      closeAllocator();
    } catch (RuntimeException e) {
      errors.add(e);
    }
    if (!errors.isEmpty()) {
      RuntimeException first = errors.get(0);
      errors.subList(1, errors.size()).forEach(first::addSuppressed);
      throw first;
    }
  }

  private void closeAllocator() {
    if (allocatorClosed) {
      return;
    }
    long outstanding = allocator.getAllocatedMemory();
    if (outstanding > 0) {
      throw new QuiverException(
          "Session "
              + id
              + " closed with "
              + outstanding
              + " bytes still allocated: close every"
              + " batch returned by collect(), then close the session again");
    }
    allocator.close();
    allocatorClosed = true;
  }
}
