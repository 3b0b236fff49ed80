package dev.quiver.distributed.codec;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import dev.quiver.binding.datasource.ParquetTable;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.expr.CoalesceExpr;
import dev.quiver.binding.physical.expr.ColumnExpr;
import dev.quiver.binding.physical.expr.InListExpr;
import dev.quiver.binding.physical.expr.IsDistinctFromExpr;
import dev.quiver.binding.physical.expr.LiteralExpr;
import dev.quiver.binding.physical.expr.NullIfExpr;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import dev.quiver.binding.physical.operator.ProjectionExec;
import dev.quiver.binding.physical.scan.ParquetScanExec;
import dev.quiver.binding.physical.scan.ParquetSplit;
import dev.quiver.binding.planner.DefaultQueryPlanner;
import dev.quiver.binding.settings.BindingSettings;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.distributed.proto.PhysicalExprNode;
import dev.quiver.distributed.proto.PhysicalPlanNode;
import dev.quiver.distributed.proto.StagePlanNode;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Plans real SQL, pushes each physical plan through the codec and checks that the decoded plan
 * prints the same, re-encodes to the same bytes and returns the same rows.
 */
@Timeout(180)
class PlanCodecRoundTripTest {
  @TempDir Path dir;
  private RoundTripSession rt;

  /** A query and whether its rows come in a defined order. */
  record Query(String sql, boolean ordered) {}

  static Query unordered(String sql) {
    return new Query(sql, false);
  }

  static Query ordered(String sql) {
    return new Query(sql, true);
  }

  static final List<Query> SCANS_AND_OPERATORS =
      List.of(
          unordered("select id, name, salary * 2 as s2 from emp where dept = 1 and salary > 80"),
          unordered("select * from emp"),
          unordered("select id, name from emp_pq where id > 3"),
          unordered("select * from emp_pq"),
          unordered("select id, name, hired from emp_csv where dept = 2"),
          unordered("select * from emp_csv"),
          ordered("select id, salary from emp_pq order by salary desc nulls last, id limit 4"),
          ordered("select name from emp_csv order by name"),
          ordered("select id from emp order by id limit 3 offset 2"),
          ordered("select id, name from emp order by id"),
          unordered("select id from emp union all select id from dept"),
          unordered("select name from emp union select name from dept"),
          unordered("select * from (values (1, 'a', 2.5), (2, 'b', null)) as v(x, y, z)"),
          unordered("select 1 + 2 as three, 'x' as s"),
          unordered("select id from emp where 1 = 0"),
          unordered("select count(*) from (select id from emp limit 4)"));

  static final List<Query> AGGREGATES_AND_WINDOWS =
      List.of(
          unordered(
              "select dept, count(*), count(salary), sum(salary), avg(salary), min(hired),"
                  + " max(name), round(stddev_samp(score), 6), round(stddev_pop(score), 6),"
                  + " round(var_samp(score), 6), round(var_pop(score), 6), bool_and(active),"
                  + " bool_or(active) from emp group by dept"),
          unordered("select dept, count(distinct name), sum(distinct id) from emp group by dept"),
          unordered("select count(*) filter (where salary > 80), sum(id) from emp"),
          unordered("select name, dept, count(*) from emp_pq group by name, dept"),
          unordered("select distinct dept from emp_csv"),
          unordered(
              "select id, dept, row_number() over (partition by dept order by id) as rn,"
                  + " rank() over (partition by dept order by salary) as rk,"
                  + " dense_rank() over (partition by dept order by salary) as drk,"
                  + " percent_rank() over (partition by dept order by id) as pr,"
                  + " cume_dist() over (partition by dept order by id) as cd,"
                  + " ntile(2) over (partition by dept order by id) as nt from emp"),
          unordered(
              "select id, lag(salary, 1) over (partition by dept order by id) as lg,"
                  + " lead(salary) over (partition by dept order by id) as ld,"
                  + " first_value(name) over (partition by dept order by id) as fv,"
                  + " last_value(name) over (partition by dept order by id rows between"
                  + " unbounded preceding and unbounded following) as lv from emp"),
          unordered(
              "select id, sum(salary) over (partition by dept order by id rows between 1"
                  + " preceding and 1 following) as s, avg(score) over (partition by dept) as a,"
                  + " min(id) over (order by id range between unbounded preceding and current"
                  + " row) as mn, max(id) over (partition by dept order by id rows between"
                  + " current row and 2 following) as mx, count(*) over () as c from emp"));

  static final List<Query> JOINS =
      List.of(
          unordered("select e.name, d.name from emp e join dept d on e.dept = d.id"),
          unordered("select e.name, d.name from emp e left join dept d on e.dept = d.id"),
          unordered("select e.name, d.name from emp e right join dept d on e.dept = d.id"),
          unordered("select e.name, d.name from emp e full join dept d on e.dept = d.id"),
          unordered(
              "select name from dept d where exists (select 1 from emp e where e.dept = d.id)"),
          unordered(
              "select name from dept d where not exists (select 1 from emp e where e.dept = d.id)"),
          unordered(
              "select e.name, d.name from emp e join dept d on e.dept = d.id and e.salary > 80"),
          unordered("select e.name, d.name from emp e join dept d on e.salary > d.id * 40"),
          unordered("select e.name, d.name from emp e left join dept d on e.salary < d.id * 40"),
          unordered("select e.id, d.id from emp e cross join dept d"),
          unordered("select p.name, c.hired from emp_pq p join emp_csv c on p.id = c.id"));

  static final List<Query> EXPRESSIONS =
      List.of(
          unordered(
              "select id, case when salary > 90 then 'high' when salary > 70 then 'mid' else"
                  + " 'low' end, case dept when 1 then 'eng' end, cast(id as varchar),"
                  + " cast(salary as double), cast('12' as int), cast(hired as timestamp) from emp"),
          unordered(
              "select name from emp where name like 'a%' or name like '%o_' or name not like"
                  + " '%x%' escape '\\' or name ilike 'B%'"),
          unordered(
              "select id, id in (1, 3, 5), dept not in (1, 2), name in ('ann', upper(name)),"
                  + " salary in (100.50, 85) from emp"),
          unordered(
              "select extract(year from hired), extract(month from hired), extract(dow from"
                  + " hired), extract(doy from hired), extract(hour from ts), extract(epoch from"
                  + " ts), extract(quarter from hired), extract(week from hired) from emp"),
          unordered(
              "select date_trunc('month', hired), date_trunc('year', ts), date_trunc('hour',"
                  + " ts), date_trunc('week', hired) from emp"),
          unordered(
              "select upper(name), lower(name), substring(name from 2 for 2), substring(name,"
                  + " 2), trim(name), ltrim(name), rtrim(name), trim(both 'a' from name),"
                  + " char_length(name), name || '!' || cast(id as varchar), concat(name, '-',"
                  + " name), position('a' in name), replace(name, 'a', 'A'), left(name, 2),"
                  + " right(name, 2) from emp"),
          unordered(
              "select salary + 1.25, salary - salary / 3, salary * 2.5, id / 2, id % 3,"
                  + " mod(id, 4), -salary, -id, salary * score from emp"),
          unordered(
              "select hired + interval '1' month, hired - interval '3' day, ts + interval '2'"
                  + " hour, ts - interval '1' year from emp"),
          unordered(
              "select coalesce(dept, -1), coalesce(salary, 0), nullif(dept, 1), dept is distinct"
                  + " from 2, dept is not distinct from 2, dept is null, salary is not null,"
                  + " active is true, active is not false, active is false, active is not true,"
                  + " not active from emp"),
          unordered(
              "select abs(score - 5), sign(score - 5), round(salary, 1), round(score),"
                  + " truncate(score, 1), floor(score), ceil(score), sqrt(abs(score)),"
                  + " power(score, 2), ln(score + 1), log10(score + 1), exp(score / 10) from emp"),
          unordered("select add2(id, cast(dept as bigint)) from emp"),
          unordered(
              "select try_cast(name as int), try_cast(salary * 1000 as smallint), name similar to"
                  + " '(a|b)%', name not similar to '[a-c]+', hired + interval '7 days', id::varchar"
                  + " from emp"),
          unordered(
              "select id from emp where (dept = 1 or dept = 2) and not (salary < 60) and hired >"
                  + " date '2017-01-01' and ts <= timestamp '2024-01-01 00:00:00' and score <> 0"
                  + " and name >= 'a'"),
          unordered("select null as n, cast(null as decimal(10, 2)) as d, true, 1.5e0 from emp"),
          unordered(
              "select id from emp where id in (1, 3, 5, 7) and name not in ('bob', 'cid') and"
                  + " salary in (100.50, 80.25, 60)"),
          unordered("select id from emp where dept is distinct from 2"),
          unordered("select e.id from emp e join dept d on e.dept is not distinct from d.id"),
          unordered("select d.id, (select e.name from emp e where e.id = d.id) from dept d"),
          unordered(
              "select split_part(name, 'n', 1), regexp_replace(name, '[aeiou]', '*', 'g'),"
                  + " regexp_matches(name, '^a'), starts_with(name, 'a'), ends_with(name, 'n'),"
                  + " lpad(name, 6, '.'), rpad(name, 6), strftime(hired, '%d/%m/%Y'),"
                  + " to_char(ts, 'YYYY-MM-DD HH24:MI'), date_format(hired, '%Y %M'),"
                  + " date_diff('month', hired, date '2024-01-01'), make_date(2024, dept, 1),"
                  + " epoch(ts), md5(name), hash(id, name), log(2, salary), reverse(name),"
                  + " date_add(hired, interval '3 days') from emp"),
          unordered(
              "select dept, median(salary), percentile_cont(0.25) within group (order by score),"
                  + " percentile_disc(0.5) within group (order by hired desc),"
                  + " string_agg(name, ',' order by id desc),"
                  + " arg_min(name, salary), arg_max(id, hired), round(corr(salary, score), 9),"
                  + " round(covar_pop(salary, id), 9), round(covar_samp(score, id) filter (where id > 1), 9)"
                  + " from emp group by dept"));

  /** Struct, list and map columns (table nest in memory, nest_pq its Parquet copy). */
  static final List<Query> NESTED =
      List.of(
          unordered("select * from nest"),
          unordered("select * from nest_pq where id > 1"),
          unordered(
              "select id, nest_pq.s.a, s['b'], l[2], l[-1], m['k'], cardinality(l),"
                  + " cardinality(m) from nest_pq"),
          ordered("select id, s, l, m from nest order by id desc"),
          unordered("select a.id, b.s, b.l, b.m from nest a join nest_pq b on a.id = b.id"),
          unordered("select nest.s.b, count(*), sum(l[1]) from nest group by nest.s.b"));

  /** Rows of table nest: id, struct s(a, b), list l of BIGINT and map m of VARCHAR to BIGINT. */
  static void registerNested(dev.quiver.binding.SessionContext session) {
    org.apache.arrow.vector.types.pojo.Field a =
        org.apache.arrow.vector.types.pojo.Field.nullable("a", new ArrowType.Int(64, true));
    org.apache.arrow.vector.types.pojo.Field b =
        org.apache.arrow.vector.types.pojo.Field.nullable("b", ArrowType.Utf8.INSTANCE);
    org.apache.arrow.vector.types.pojo.Schema schema =
        new org.apache.arrow.vector.types.pojo.Schema(
            List.of(
                org.apache.arrow.vector.types.pojo.Field.notNullable(
                    "id", new ArrowType.Int(64, true)),
                new org.apache.arrow.vector.types.pojo.Field(
                    "s",
                    org.apache.arrow.vector.types.pojo.FieldType.nullable(
                        ArrowType.Struct.INSTANCE),
                    List.of(a, b)),
                new org.apache.arrow.vector.types.pojo.Field(
                    "l",
                    org.apache.arrow.vector.types.pojo.FieldType.nullable(ArrowType.List.INSTANCE),
                    List.of(
                        org.apache.arrow.vector.types.pojo.Field.nullable(
                            "element", new ArrowType.Int(64, true)))),
                new org.apache.arrow.vector.types.pojo.Field(
                    "m",
                    org.apache.arrow.vector.types.pojo.FieldType.nullable(new ArrowType.Map(false)),
                    List.of(
                        new org.apache.arrow.vector.types.pojo.Field(
                            "entries",
                            org.apache.arrow.vector.types.pojo.FieldType.notNullable(
                                ArrowType.Struct.INSTANCE),
                            List.of(
                                org.apache.arrow.vector.types.pojo.Field.notNullable(
                                    "key", ArrowType.Utf8.INSTANCE),
                                org.apache.arrow.vector.types.pojo.Field.nullable(
                                    "value", new ArrowType.Int(64, true))))))));
    org.apache.arrow.vector.VectorSchemaRoot root =
        org.apache.arrow.vector.VectorSchemaRoot.create(schema, session.allocator());
    int n = 5;
    org.apache.arrow.vector.BigIntVector id =
        (org.apache.arrow.vector.BigIntVector) root.getVector(0);
    org.apache.arrow.vector.complex.StructVector s =
        (org.apache.arrow.vector.complex.StructVector) root.getVector(1);
    org.apache.arrow.vector.complex.ListVector l =
        (org.apache.arrow.vector.complex.ListVector) root.getVector(2);
    org.apache.arrow.vector.complex.MapVector m =
        (org.apache.arrow.vector.complex.MapVector) root.getVector(3);
    org.apache.arrow.vector.BigIntVector sa =
        s.getChild("a", org.apache.arrow.vector.BigIntVector.class);
    org.apache.arrow.vector.VarCharVector sb =
        s.getChild("b", org.apache.arrow.vector.VarCharVector.class);
    org.apache.arrow.vector.complex.impl.UnionListWriter lw = l.getWriter();
    org.apache.arrow.vector.complex.impl.UnionMapWriter mw = m.getWriter();
    for (int i = 0; i < n; i++) {
      id.setSafe(i, i);
      if (i != 2) {
        s.setIndexDefined(i);
        sa.setSafe(i, i * 10L);
        sb.setSafe(i, ("b" + i % 2).getBytes(java.nio.charset.StandardCharsets.UTF_8));
      } else {
        s.setNull(i);
      }
      if (i != 3) {
        lw.setPosition(i);
        lw.startList();
        for (int k = 0; k < i; k++) {
          lw.bigInt().writeBigInt(i + k);
        }
        lw.endList();
      }
      if (i != 4) {
        mw.setPosition(i);
        mw.startMap();
        mw.startEntry();
        mw.key().varChar().writeVarChar("k");
        mw.value().bigInt().writeBigInt(i * 7L);
        mw.endEntry();
        mw.endMap();
      }
    }
    sa.setValueCount(n);
    sb.setValueCount(n);
    lw.setValueCount(n);
    mw.setValueCount(n);
    root.setRowCount(n);
    try (root) {
      // The table holds copies.
      session.registerRecordBatches("nest", schema, List.of(root));
    }
  }

  /**
   * Expressions the SQL front end rewrites away (Calcite expands COALESCE, NULLIF, IN and IS
   * DISTINCT FROM into CASE and OR), put by hand over a planned scan of emp.
   */
  private ExecutionPlan rewrittenAwayExpressions() {
    ExecutionPlan scan = rt.physicalPlan("select id, dept, salary, name from emp");
    ArrowType integer = new ArrowType.Int(32, true);
    ColumnExpr id = new ColumnExpr(0, "id", integer, false);
    ColumnExpr dept = new ColumnExpr(1, "dept", integer, true);
    ColumnExpr salary = new ColumnExpr(2, "salary", new ArrowType.Decimal(10, 2, 128), true);
    ColumnExpr name = new ColumnExpr(3, "name", ArrowType.Utf8.INSTANCE, true);
    LiteralExpr one = new LiteralExpr(1L, integer);
    List<PhysicalExpr> exprs =
        List.of(
            new CoalesceExpr(List.of(dept, new LiteralExpr(-1L, integer)), integer),
            new NullIfExpr(dept, one),
            new InListExpr(
                id, List.of(one, new LiteralExpr(3L, integer), LiteralExpr.nullOf(integer)), false),
            new InListExpr(
                name, List.of(new LiteralExpr("ann", ArrowType.Utf8.INSTANCE), name), true),
            new InListExpr(
                salary,
                List.of(
                    new LiteralExpr(new BigDecimal("100.50"), new ArrowType.Decimal(10, 2, 128))),
                false),
            new IsDistinctFromExpr(dept, one, false),
            new IsDistinctFromExpr(dept, id, true));
    return new ProjectionExec(scan, exprs, List.of("c", "n", "i", "ni", "si", "d", "nd"));
  }

  @BeforeEach
  void setUp() {
    rt = new RoundTripSession(new SessionConfig().withTargetPartitions(3).withBatchSize(4));
    rt.session.sql("create table dept (id int not null, name varchar)");
    rt.session.sql("insert into dept values (1, 'eng'), (2, 'sales'), (3, 'empty')");
    rt.session.sql(
        "create table emp (id int not null, name varchar, dept int, salary decimal(10, 2),"
            + " hired date, ts timestamp, active boolean, score double)");
    rt.session.sql(
        "insert into emp values "
            + "(1, 'ann', 1, 100.50, date '2020-01-05', timestamp '2020-01-05 10:30:00', true,"
            + " 4.5),"
            + "(2, 'bob', 1, 90.00, date '2021-03-01', timestamp '2021-03-01 08:00:00', false,"
            + " 7.25),"
            + "(3, 'cid', 2, 80.25, date '2019-07-10', null, true, 1.0),"
            + "(4, 'dee', 2, 85.00, date '2022-11-30', timestamp '2022-11-30 23:59:59', null,"
            + " 9.5),"
            + "(5, 'eve', null, 70.00, date '2018-02-14', timestamp '2018-02-14 12:00:00', true,"
            + " 3.0),"
            + "(6, 'fay', 1, null, null, timestamp '2016-06-06 06:06:06', false, null),"
            + "(7, 'gus', 2, 60.00, date '2023-05-05', timestamp '2023-05-05 05:05:05', true,"
            + " 6.75),"
            + "(8, 'Bo', 1, 120.00, date '2017-09-09', timestamp '2017-09-09 09:09:09', true,"
            + " 2.5),"
            + "(9, 'ivy', 4, 50.00, date '2016-06-06', timestamp '2016-06-06 16:00:00', false,"
            + " 8.0),"
            + "(10, 'jon', 2, 95.75, date '2015-01-01', timestamp '2015-01-01 00:00:01', true,"
            + " 5.5)");
    rt.session.sql("select * from emp").writeParquet(dir.resolve("pq").toString());
    rt.session.registerParquet("emp_pq", dir.resolve("pq").toString());
    rt.session.sql("select * from emp").writeCsv(dir.resolve("csv").toString());
    rt.session.registerCsv("emp_csv", dir.resolve("csv").toString());
    registerNested(rt.session);
    rt.session.sql("select * from nest").writeParquet(dir.resolve("nest_pq").toString());
    rt.session.registerParquet("nest_pq", dir.resolve("nest_pq").toString());
    Add2Udf add2 = new Add2Udf();
    rt.session.registerUdf(add2);
    rt.executorUdfs.put(add2.name(), add2);
  }

  @AfterEach
  void tearDown() {
    rt.close();
  }

  @Test
  void scansAndOperatorsRoundTrip() {
    SCANS_AND_OPERATORS.forEach(q -> rt.check(q.sql(), q.ordered()));
  }

  @Test
  void aggregatesAndWindowsRoundTrip() {
    AGGREGATES_AND_WINDOWS.forEach(q -> rt.check(q.sql(), q.ordered()));
  }

  @Test
  void joinsRoundTripInBothModes() {
    JOINS.forEach(q -> rt.check(q.sql(), q.ordered()));
    // With no collect threshold every equi-join repartitions both sides.
    rt.session.config().set(DefaultQueryPlanner.COLLECT_BUILD_THRESHOLD_ROWS, "0");
    JOINS.forEach(q -> rt.check(q.sql(), q.ordered()));
    // As a cluster plans them: EXISTS marks the outer rows per partition and merges the marks.
    rt.session.config().set(DefaultQueryPlanner.COLLECT_BUILD_THRESHOLD_ROWS, "1000000");
    rt.session.config().set(BindingSettings.SHARED_JOIN_MARKS.key(), "false");
    JOINS.forEach(q -> rt.check(q.sql(), q.ordered()));
  }

  @Test
  void nestedColumnsRoundTrip() {
    NESTED.forEach(q -> rt.check(q.sql(), q.ordered()));
  }

  @Test
  void expressionsRoundTrip() {
    EXPRESSIONS.forEach(q -> rt.check(q.sql(), q.ordered()));
    rt.checkPlan(rewrittenAwayExpressions());
  }

  @Test
  void parquetRowGroupSplitsRoundTrip() throws InvalidProtocolBufferException {
    Path pq = dir.resolve("pq_no_ts");
    rt.session
        .sql("select id, name, dept, salary, hired, active, score from emp")
        .writeParquet(pq.toString());
    ParquetTable table = ParquetTable.open(pq.toString());
    String file = table.files().get(0).toString();
    ExecutionPlan scan =
        ParquetScanExec.ofSplits(
            table.schema(),
            List.of(
                List.of(ParquetSplit.rowGroups(file, 0, 1)), List.of(ParquetSplit.wholeFile(file))),
            new int[] {1, 0, 4},
            java.util.OptionalLong.empty(),
            4,
            -1);
    StagePlanNode node = StagePlanNode.parseFrom(rt.checkPlan(scan));
    assertThat(node.toString()).contains("row_groups");
    // The writer's row order and group sizes vary run to run: compare against each part alone.
    List<String> firstGroup =
        rt.execute(
            ParquetScanExec.ofSplits(
                table.schema(),
                List.of(List.of(ParquetSplit.rowGroups(file, 0, 1))),
                new int[] {1, 0, 4},
                java.util.OptionalLong.empty(),
                4,
                -1));
    List<String> wholeFile =
        rt.execute(
            ParquetScanExec.ofSplits(
                table.schema(),
                List.of(List.of(ParquetSplit.wholeFile(file))),
                new int[] {1, 0, 4},
                java.util.OptionalLong.empty(),
                4,
                -1));
    assertThat(firstGroup).isNotEmpty();
    assertThat(wholeFile).containsAll(firstGroup);
    List<String> both = new java.util.ArrayList<>(firstGroup);
    both.addAll(wholeFile);
    assertThat(rt.execute(scan)).containsExactlyInAnyOrderElementsOf(both);
  }

  @Test
  void parquetSplitVersionsRoundTrip() throws InvalidProtocolBufferException {
    Path pq = dir.resolve("pq_versions");
    rt.session.sql("select id, name from emp").writeParquet(pq.toString());
    String file = ParquetTable.open(pq.toString()).files().get(0);
    ExecutionPlan scan =
        ParquetScanExec.ofSplits(
            ParquetTable.open(pq.toString()).schema(),
            List.of(
                List.of(ParquetSplit.rowGroups(file, 0, 1).withVersion("\"etag-1\"")),
                List.of(ParquetSplit.wholeFile(file))),
            null,
            java.util.OptionalLong.empty(),
            4,
            -1);
    // Re-encoding the decoded plan gives the same bytes, so the versions (and their absence)
    // came through; the local store reads whatever the file holds.
    StagePlanNode node = StagePlanNode.parseFrom(rt.checkPlan(scan));
    assertThat(node.toString()).contains("versions: \"\\\"etag-1\\\"\"");
  }

  @Test
  void theQueriesCoverEveryNodeAndExpressionKind() throws InvalidProtocolBufferException {
    Set<String> seen = new TreeSet<>();
    for (List<Query> group :
        List.of(SCANS_AND_OPERATORS, AGGREGATES_AND_WINDOWS, JOINS, EXPRESSIONS, NESTED)) {
      for (Query q : group) {
        byte[] bytes =
            rt.codec.encodeStage(
                new StagePlan(
                    rt.physicalPlan(q.sql()), dev.quiver.binding.physical.Partitioning.single()));
        collectKinds(StagePlanNode.parseFrom(bytes), seen);
      }
    }
    collectKinds(StagePlanNode.parseFrom(rt.checkPlan(rewrittenAwayExpressions())), seen);
    // Merged join marks are what a cluster plans instead of marks shared in one process.
    rt.session.config().set(BindingSettings.SHARED_JOIN_MARKS.key(), "false");
    for (Query q : JOINS) {
      byte[] bytes =
          rt.codec.encodeStage(
              new StagePlan(
                  rt.physicalPlan(q.sql()), dev.quiver.binding.physical.Partitioning.single()));
      collectKinds(StagePlanNode.parseFrom(bytes), seen);
    }
    Set<String> expected = new TreeSet<>();
    for (PhysicalPlanNode.NodeCase c : EnumSet.allOf(PhysicalPlanNode.NodeCase.class)) {
      expected.add("node " + c);
    }
    for (PhysicalExprNode.ExprCase c : EnumSet.allOf(PhysicalExprNode.ExprCase.class)) {
      expected.add("expr " + c);
    }
    // Planned SQL never has these: the stage planner adds shuffle readers, per-partition limits
    // and runtime filters' Bloom filters, plug-ins add extension nodes; PlanCodecTest covers them.
    expected.removeAll(
        Set.of(
            "node NODE_NOT_SET",
            "expr EXPR_NOT_SET",
            "node SHUFFLE_READER",
            "node LOCAL_LIMIT",
            "node BLOOM_FILTER",
            "node EXTENSION"));
    assertThat(seen).containsAll(expected);
  }

  /** Records every node and expression kind in {@code m}. */
  static void collectKinds(Message m, Set<String> out) {
    if (m instanceof PhysicalPlanNode n) {
      out.add("node " + n.getNodeCase());
    } else if (m instanceof PhysicalExprNode e) {
      out.add("expr " + e.getExprCase());
    }
    for (Map.Entry<FieldDescriptor, Object> f : m.getAllFields().entrySet()) {
      if (f.getKey().getJavaType() != FieldDescriptor.JavaType.MESSAGE) {
        continue;
      }
      if (f.getKey().isRepeated()) {
        for (Object o : (List<?>) f.getValue()) {
          collectKinds((Message) o, out);
        }
      } else {
        collectKinds((Message) f.getValue(), out);
      }
    }
  }
}
