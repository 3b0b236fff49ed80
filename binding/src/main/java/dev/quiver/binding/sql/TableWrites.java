package dev.quiver.binding.sql;

import dev.quiver.binding.datasource.MemoryTable;
import dev.quiver.binding.datasource.TableConstraints;
import dev.quiver.binding.errors.ConstraintViolationException;
import dev.quiver.binding.errors.QueryTypeException;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.errors.Suggestions;
import dev.quiver.binding.errors.UnknownColumnException;
import dev.quiver.binding.errors.UnknownTableException;
import dev.quiver.binding.errors.UnsupportedFeatureException;
import dev.quiver.binding.logical.TypeMapping;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlDelete;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlInsert;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.SqlUpdate;
import org.apache.calcite.sql.fun.SqlCase;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.type.SqlTypeUtil;
import org.apache.calcite.tools.RelBuilder;

/**
 * INSERT, UPDATE and DELETE on memory tables. An INSERT appends the rows of its VALUES or query,
 * cast to the columns' types. UPDATE and DELETE each compute the table's new contents with one
 * query over the table as it is (so WHERE and SET may hold subqueries, also over the table itself),
 * on the session's engine (a cluster, when the session is distributed), then replaces the contents
 * at once: a statement that fails (an error in an expression, a broken constraint) changes nothing.
 * The table's write lock is held from the read to the replace.
 */
final class TableWrites {
  /** Marks the rows an UPDATE changes; a name no table column can have by accident. */
  private static final String HIT = "quiver$updated";

  private final SessionState session;

  TableWrites(SessionState session) {
    this.session = session;
  }

  /**
   * Runs {@code INSERT INTO t [(columns)] VALUES ... | query}: columns left out take their DEFAULT
   * expressions or NULL; returns the number of rows inserted.
   */
  long insert(SqlInsert insert) {
    List<String> names = ((SqlIdentifier) insert.getTargetTable()).names;
    if (names.size() > 1) {
      CatalogTableWrites.Target target = CatalogTableWrites.target(session, names, "INSERT INTO");
      RelNode rows = insertedRows(target.name(), target.provider().schema(), null, insert);
      return CatalogTableWrites.insert(session, target, new DataFrameImpl(session, rows));
    }
    String name = names.get(names.size() - 1);
    Catalog.TableEntry entry = session.catalog().table(name);
    if (entry == null) {
      throw new UnknownTableException(name, Suggestions.closest(name, session.catalog().names()));
    }
    if (!(entry.provider() instanceof MemoryTable table)) {
      throw new QuiverException(
          "INSERT INTO "
              + name
              + " is not possible: only memory tables (CREATE TABLE) accept inserts");
    }
    RelNode converted = insertedRows(name, table.schema(), table, insert);
    DataFrameImpl df = new DataFrameImpl(session, converted);
    table.writeLock().lock();
    try {
      // Execution re-enters the session lock from this thread; the lock is reentrant.
      List<VectorSchemaRoot> batches = df.collect();
      long rows = batches.stream().mapToLong(VectorSchemaRoot::getRowCount).sum();
      try {
        table.insert("INSERT INTO " + name, name, batches);
      } finally {
        batches.forEach(VectorSchemaRoot::close);
      }
      return rows;
    } finally {
      table.writeLock().unlock();
    }
  }

  /**
   * The rows {@code insert} adds to table {@code name} of {@code schema}, cast to its columns'
   * types; columns left out take their DEFAULT expressions ({@code table}'s, when it is a memory
   * table) or NULL.
   */
  private RelNode insertedRows(String name, Schema schema, MemoryTable table, SqlInsert insert) {
    SqlPipeline p = session.pipeline();
    TableConstraints constraints = table == null ? TableConstraints.NONE : table.constraints();
    RelDataType tableType = TypeMapping.toRelRowType(schema, p.typeFactory());
    List<RelDataTypeField> tableFields = tableType.getFieldList();
    List<Integer> targets = new ArrayList<>();
    SqlNodeList columnList = insert.getTargetColumnList();
    if (columnList == null) {
      for (int i = 0; i < tableFields.size(); i++) {
        targets.add(i);
      }
    } else {
      for (SqlNode c : columnList) {
        String col = ((SqlIdentifier) c).getSimple();
        RelDataTypeField f = tableType.getField(col, false, false);
        if (f == null) {
          throw new UnknownColumnException(
              col, Suggestions.closest(col, tableType.getFieldNames()));
        }
        targets.add(f.getIndex());
      }
    }
    SqlNode sourceNode = insert.getSource();
    SqlParserPos pos = insert.getParserPosition();
    if (sourceNode.getKind() == SqlKind.VALUES) {
      // VALUES (1, DEFAULT): the column's DEFAULT expression, or NULL.
      for (SqlNode row : ((SqlBasicCall) sourceNode).getOperandList()) {
        if (row instanceof SqlBasicCall r && r.getKind() == SqlKind.ROW) {
          for (int i = 0; i < r.operandCount() && i < targets.size(); i++) {
            if (r.operand(i).getKind() == SqlKind.DEFAULT) {
              r.setOperand(
                  i,
                  defaultValue(
                      session, constraints, tableFields.get(targets.get(i)).getName(), pos));
            }
          }
        }
      }
    }
    // Columns the INSERT leaves out take their DEFAULT expressions.
    List<SqlNode> defaultItems = new ArrayList<>();
    for (RelDataTypeField tf : tableFields) {
      if (!targets.contains(tf.getIndex()) && constraints.defaults().containsKey(tf.getName())) {
        defaultItems.add(
            SqlStdOperatorTable.AS.createCall(
                pos,
                defaultValue(session, constraints, tf.getName(), pos),
                new SqlIdentifier("quiver$default" + defaultItems.size(), pos)));
        targets.add(tf.getIndex());
      }
    }
    if (!defaultItems.isEmpty()) {
      List<SqlNode> items = new ArrayList<>();
      items.add(SqlIdentifier.star(pos));
      items.addAll(defaultItems);
      sourceNode =
          new SqlSelect(
              pos,
              null,
              new SqlNodeList(items, pos),
              SqlStdOperatorTable.AS.createCall(
                  pos, sourceNode, new SqlIdentifier("quiver$source", pos)),
              null,
              null,
              null,
              null,
              null,
              null,
              null,
              null,
              null);
    }
    RelNode source = p.toRel(sourceNode);
    List<RelDataTypeField> sourceFields = source.getRowType().getFieldList();
    if (sourceFields.size() != targets.size()) {
      throw new QueryTypeException(
          "INSERT INTO "
              + name
              + " names "
              + targets.size()
              + " columns but the query returns "
              + sourceFields.size());
    }
    RexBuilder rex = p.cluster().getRexBuilder();
    RelBuilder b = p.relBuilder().push(source);
    List<RexNode> exprs = new ArrayList<>();
    for (RelDataTypeField tf : tableFields) {
      int at = targets.indexOf(tf.getIndex());
      RelDataType nullable = p.typeFactory().createTypeWithNullability(tf.getType(), true);
      if (at < 0) {
        if (!tf.getType().isNullable()) {
          throw new ConstraintViolationException(
              "INSERT INTO "
                  + name
                  + ": NULL in column "
                  + tf.getName()
                  + ", which is NOT NULL and has no DEFAULT; give it a value",
              name,
              tf.getName(),
              "NULL");
        }
        exprs.add(rex.makeNullLiteral(nullable));
        continue;
      }
      RelDataType from = sourceFields.get(at).getType();
      if (!SqlTypeUtil.canCastFrom(tf.getType(), from, true)) {
        throw new QueryTypeException(
            "INSERT INTO "
                + name
                + ": cannot store "
                + from
                + " in column "
                + tf.getName()
                + " of type "
                + tf.getType());
      }
      // NOT NULL is checked on the values (MemoryTable.insert), naming the column.
      exprs.add(rex.makeCast(nullable, b.field(at), true, false));
    }
    return b.project(exprs, tableType.getFieldNames(), true).build();
  }

  /**
   * The value DEFAULT stands for in {@code column} of {@code table}: its DEFAULT expression, or
   * NULL.
   */
  static SqlNode defaultValue(
      SessionState session, TableConstraints constraints, String column, SqlParserPos pos) {
    String text = constraints.defaults().get(column);
    if (text == null) {
      return SqlLiteral.createNull(pos);
    }
    SqlNode select = session.pipeline().parse("SELECT " + text);
    SqlNode item = ((SqlSelect) select).getSelectList().get(0);
    return item.getKind() == SqlKind.AS ? ((SqlCall) item).operand(0) : item;
  }

  /** Runs {@code DELETE FROM t [AS a] [WHERE cond]}; returns the number of rows deleted. */
  long delete(SqlDelete delete) {
    SqlIdentifier target = (SqlIdentifier) delete.getTargetTable();
    String name = last(target);
    SqlParserPos pos = delete.getParserPosition();
    String alias = delete.getAlias() == null ? name : delete.getAlias().getSimple();
    if (target.names.size() > 1) {
      return CatalogTableWrites.delete(
          session,
          CatalogTableWrites.target(session, target.names, "DELETE FROM"),
          target,
          alias,
          delete.getCondition(),
          pos);
    }
    MemoryTable table = memoryTable(name, "DELETE FROM");
    table.writeLock().lock();
    try {
      long before = table.rowCount();
      if (delete.getCondition() == null) {
        table.replace("DELETE FROM " + name, name, List.of());
        return before;
      }
      // The rows to keep: those for which the condition is not TRUE (FALSE or NULL).
      SqlNode keep =
          SqlStdOperatorTable.NOT.createCall(
              pos, SqlStdOperatorTable.IS_TRUE.createCall(pos, delete.getCondition()));
      SqlSelect query =
          select(pos, SqlNodeList.of(SqlIdentifier.star(pos)), from(target, alias, pos), keep);
      List<VectorSchemaRoot> batches =
          new DataFrameImpl(session, session.pipeline().toRel(query)).collect();
      try {
        long after = batches.stream().mapToLong(VectorSchemaRoot::getRowCount).sum();
        table.replace("DELETE FROM " + name, name, batches);
        return before - after;
      } finally {
        batches.forEach(VectorSchemaRoot::close);
      }
    } finally {
      table.writeLock().unlock();
    }
  }

  /** Runs {@code UPDATE t [AS a] SET c = e, ... [WHERE cond]}; returns the rows updated. */
  long update(SqlUpdate update) {
    SqlIdentifier target = (SqlIdentifier) update.getTargetTable();
    String name = last(target);
    if (target.names.size() > 1) {
      throw new UnsupportedFeatureException(
          "UPDATE "
              + String.join(".", target.names)
              + " is not supported: UPDATE changes session tables; tables of catalogs take INSERT"
              + " and DELETE");
    }
    MemoryTable table = memoryTable(name, "UPDATE");
    SqlPipeline p = session.pipeline();
    SqlParserPos pos = update.getParserPosition();
    String alias = update.getAlias() == null ? name : update.getAlias().getSimple();
    RelDataType tableType = TypeMapping.toRelRowType(table.schema(), p.typeFactory());
    List<String> columns = tableType.getFieldNames();
    SqlNode[] newValues = new SqlNode[columns.size()];
    List<SqlNode> targets = update.getTargetColumnList().getList();
    List<SqlNode> sources = update.getSourceExpressionList().getList();
    for (int i = 0; i < targets.size(); i++) {
      String column = last((SqlIdentifier) targets.get(i));
      RelDataTypeField f = tableType.getField(column, false, false);
      if (f == null) {
        throw new UnknownColumnException(column, Suggestions.closest(column, columns));
      }
      if (newValues[f.getIndex()] != null) {
        throw new QuiverException("UPDATE " + name + " sets column " + f.getName() + " twice");
      }
      SqlNode value = sources.get(i);
      newValues[f.getIndex()] =
          SqlStdOperatorTable.CAST.createCall(
              pos, value, SqlTypeUtil.convertTypeToSpec(f.getType()));
    }
    // Inner: the table and whether each row is to be updated; outer: the new rows, each new value
    // evaluated only for the rows it replaces (CASE evaluates a branch only where it is taken).
    SqlNode condition =
        update.getCondition() == null
            ? SqlLiteral.createBoolean(true, pos)
            : SqlStdOperatorTable.IS_TRUE.createCall(pos, update.getCondition());
    SqlSelect inner =
        select(
            pos,
            SqlNodeList.of(
                SqlIdentifier.star(pos),
                SqlStdOperatorTable.AS.createCall(pos, condition, new SqlIdentifier(HIT, pos))),
            from(target, alias, pos),
            null);
    List<SqlNode> items = new ArrayList<>();
    SqlIdentifier hit = new SqlIdentifier(List.of(alias, HIT), pos);
    for (int c = 0; c < columns.size(); c++) {
      SqlIdentifier old = new SqlIdentifier(List.of(alias, columns.get(c)), pos);
      SqlNode item =
          newValues[c] == null
              ? old
              : new SqlCase(pos, null, SqlNodeList.of(hit), SqlNodeList.of(newValues[c]), old);
      items.add(
          SqlStdOperatorTable.AS.createCall(pos, item, new SqlIdentifier(columns.get(c), pos)));
    }
    items.add(hit);
    SqlSelect outer =
        select(
            pos,
            new SqlNodeList(items, pos),
            SqlStdOperatorTable.AS.createCall(pos, inner, new SqlIdentifier(alias, pos)),
            null);
    table.writeLock().lock();
    try {
      RelNode rel = p.toRel(outer);
      RexBuilder rex = p.cluster().getRexBuilder();
      RelBuilder b = p.relBuilder().push(rel);
      List<RexNode> exprs = new ArrayList<>();
      List<RelDataTypeField> fields = rel.getRowType().getFieldList();
      for (int c = 0; c < columns.size(); c++) {
        RelDataType want =
            p.typeFactory()
                .createTypeWithNullability(tableType.getFieldList().get(c).getType(), true);
        RexNode field = b.field(c);
        exprs.add(
            SqlTypeUtil.equalSansNullability(p.typeFactory(), fields.get(c).getType(), want)
                ? field
                : rex.makeCast(want, field, true, false));
      }
      exprs.add(b.field(columns.size()));
      List<String> names = new ArrayList<>(columns);
      names.add(HIT);
      RelNode converted = b.project(exprs, names, true).build();
      List<VectorSchemaRoot> batches = new DataFrameImpl(session, converted).collect();
      List<VectorSchemaRoot> rows = new ArrayList<>();
      long updated = 0;
      try {
        for (VectorSchemaRoot batch : batches) {
          BitVector flags = (BitVector) batch.getVector(columns.size());
          for (int r = 0; r < batch.getRowCount(); r++) {
            if (!flags.isNull(r) && flags.get(r) == 1) {
              updated++;
            }
          }
          List<FieldVector> vectors = batch.getFieldVectors().subList(0, columns.size());
          List<Field> rowFields = new ArrayList<>();
          vectors.forEach(v -> rowFields.add(v.getField()));
          rows.add(new VectorSchemaRoot(rowFields, new ArrayList<>(vectors), batch.getRowCount()));
        }
        table.replace("UPDATE " + name, name, rows);
      } finally {
        batches.forEach(VectorSchemaRoot::close);
      }
      return updated;
    } finally {
      table.writeLock().unlock();
    }
  }

  private MemoryTable memoryTable(String name, String verb) {
    Catalog.TableEntry entry = session.catalog().table(name);
    if (entry == null) {
      if (session.catalog().view(name) != null) {
        throw new QuiverException(verb + " " + name + " is not possible: '" + name + "' is a view");
      }
      throw new UnknownTableException(name, Suggestions.closest(name, session.catalog().names()));
    }
    if (!(entry.provider() instanceof MemoryTable table)) {
      throw new QuiverException(
          verb
              + " "
              + name
              + " is not possible: only memory tables (CREATE TABLE) can be changed; "
              + name
              + " reads files");
    }
    return table;
  }

  private static SqlNode from(SqlIdentifier target, String alias, SqlParserPos pos) {
    return SqlStdOperatorTable.AS.createCall(pos, target, new SqlIdentifier(alias, pos));
  }

  private static SqlSelect select(
      SqlParserPos pos, SqlNodeList items, SqlNode from, SqlNode where) {
    return new SqlSelect(
        pos, null, items, from, where, null, null, null, null, null, null, null, null);
  }

  /** The last part of a (possibly qualified) name. */
  private static String last(SqlIdentifier id) {
    return id.names.get(id.names.size() - 1);
  }
}
