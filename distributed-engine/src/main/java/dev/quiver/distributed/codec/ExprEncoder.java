package dev.quiver.distributed.codec;

import dev.quiver.binding.physical.expr.ArithmeticExpr;
import dev.quiver.binding.physical.expr.CardinalityExpr;
import dev.quiver.binding.physical.expr.CaseExpr;
import dev.quiver.binding.physical.expr.CastExpr;
import dev.quiver.binding.physical.expr.CoalesceExpr;
import dev.quiver.binding.physical.expr.ColumnExpr;
import dev.quiver.binding.physical.expr.ComparisonExpr;
import dev.quiver.binding.physical.expr.DateArithmeticExpr;
import dev.quiver.binding.physical.expr.DateTruncExpr;
import dev.quiver.binding.physical.expr.ElementExpr;
import dev.quiver.binding.physical.expr.ExtractExpr;
import dev.quiver.binding.physical.expr.InListExpr;
import dev.quiver.binding.physical.expr.IsDistinctFromExpr;
import dev.quiver.binding.physical.expr.IsNullExpr;
import dev.quiver.binding.physical.expr.IsTruthExpr;
import dev.quiver.binding.physical.expr.LikeExpr;
import dev.quiver.binding.physical.expr.LiteralExpr;
import dev.quiver.binding.physical.expr.LogicalExpr;
import dev.quiver.binding.physical.expr.MathExpr;
import dev.quiver.binding.physical.expr.NegativeExpr;
import dev.quiver.binding.physical.expr.NotExpr;
import dev.quiver.binding.physical.expr.NullIfExpr;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import dev.quiver.binding.physical.expr.ScalarFunctionExpr;
import dev.quiver.binding.physical.expr.SingleRowExpr;
import dev.quiver.binding.physical.expr.StringFunctionExpr;
import dev.quiver.binding.physical.expr.StructFieldExpr;
import dev.quiver.binding.physical.expr.UdfExpr;
import dev.quiver.distributed.proto.ArithmeticExprNode;
import dev.quiver.distributed.proto.ArithmeticOpSpec;
import dev.quiver.distributed.proto.CardinalityExprNode;
import dev.quiver.distributed.proto.CaseExprNode;
import dev.quiver.distributed.proto.CastExprNode;
import dev.quiver.distributed.proto.CoalesceExprNode;
import dev.quiver.distributed.proto.ColumnExprNode;
import dev.quiver.distributed.proto.ComparisonExprNode;
import dev.quiver.distributed.proto.ComparisonOpSpec;
import dev.quiver.distributed.proto.DateArithmeticExprNode;
import dev.quiver.distributed.proto.DateArithmeticOpSpec;
import dev.quiver.distributed.proto.DateTruncExprNode;
import dev.quiver.distributed.proto.DateTruncUnitSpec;
import dev.quiver.distributed.proto.ElementExprNode;
import dev.quiver.distributed.proto.ExtractExprNode;
import dev.quiver.distributed.proto.ExtractFieldSpec;
import dev.quiver.distributed.proto.InListExprNode;
import dev.quiver.distributed.proto.IsDistinctFromExprNode;
import dev.quiver.distributed.proto.IsNullExprNode;
import dev.quiver.distributed.proto.IsTruthExprNode;
import dev.quiver.distributed.proto.LikeExprNode;
import dev.quiver.distributed.proto.LiteralExprNode;
import dev.quiver.distributed.proto.LogicalExprNode;
import dev.quiver.distributed.proto.LogicalOpSpec;
import dev.quiver.distributed.proto.MathExprNode;
import dev.quiver.distributed.proto.MathFunctionSpec;
import dev.quiver.distributed.proto.NegativeExprNode;
import dev.quiver.distributed.proto.NotExprNode;
import dev.quiver.distributed.proto.NullIfExprNode;
import dev.quiver.distributed.proto.PhysicalExprNode;
import dev.quiver.distributed.proto.ScalarFunctionExprNode;
import dev.quiver.distributed.proto.ScalarFunctionSpec;
import dev.quiver.distributed.proto.SingleRowExprNode;
import dev.quiver.distributed.proto.StringFunctionExprNode;
import dev.quiver.distributed.proto.StringFunctionSpec;
import dev.quiver.distributed.proto.StructFieldExprNode;
import dev.quiver.distributed.proto.TruthTestSpec;
import dev.quiver.distributed.proto.UdfExprNode;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Schema;

/** Encodes physical expressions; remembers which plan node they belong to, for errors. */
final class ExprEncoder {
  private String node = "the plan";

  /** Sets the node whose expressions come next; returns the previous one. */
  String inNode(String name) {
    String previous = node;
    node = name;
    return previous;
  }

  PhysicalExprNode expr(PhysicalExpr e) {
    PhysicalExprNode.Builder b = PhysicalExprNode.newBuilder();
    if (e instanceof ColumnExpr c) {
      ColumnExprNode.Builder n =
          ColumnExprNode.newBuilder()
              .setIndex(c.index())
              .setName(c.name())
              .setDataType(ArrowSerde.type(c.dataType()))
              .setNullable(c.nullable());
      if (!c.childFields().isEmpty()) {
        n.setDataField(ArrowSerde.schema(new Schema(List.of(c.field(c.name())))));
      }
      b.setColumn(n);
    } else if (e instanceof StructFieldExpr f) {
      b.setStructField(
          StructFieldExprNode.newBuilder().setInput(expr(f.input())).setIndex(f.index()));
    } else if (e instanceof ElementExpr el) {
      b.setElement(
          ElementExprNode.newBuilder().setContainer(expr(el.container())).setKey(expr(el.key())));
    } else if (e instanceof CardinalityExpr card) {
      b.setCardinality(
          CardinalityExprNode.newBuilder()
              .setContainer(expr(card.container()))
              .setDataType(ArrowSerde.type(card.dataType())));
    } else if (e instanceof LiteralExpr l) {
      LiteralExprNode.Builder n =
          LiteralExprNode.newBuilder().setDataType(ArrowSerde.type(l.dataType()));
      if (l.value() != null) {
        n.setValue(ScalarValues.encode(l.value(), "a literal in " + node));
      }
      b.setLiteral(n);
    } else if (e instanceof ArithmeticExpr a) {
      b.setArithmetic(
          ArithmeticExprNode.newBuilder()
              .setOpValue(EnumMapping.toNumber(ArithmeticOpSpec.getDescriptor(), a.op()))
              .setLeft(expr(a.left()))
              .setRight(expr(a.right()))
              .setDataType(ArrowSerde.type(a.dataType())));
    } else if (e instanceof ComparisonExpr c) {
      b.setComparison(
          ComparisonExprNode.newBuilder()
              .setOpValue(EnumMapping.toNumber(ComparisonOpSpec.getDescriptor(), c.op()))
              .setLeft(expr(c.left()))
              .setRight(expr(c.right())));
    } else if (e instanceof LogicalExpr l) {
      b.setLogical(
          LogicalExprNode.newBuilder()
              .setOpValue(EnumMapping.toNumber(LogicalOpSpec.getDescriptor(), l.op()))
              .addAllOperands(exprs(l.operands())));
    } else if (e instanceof NotExpr n) {
      b.setNot(NotExprNode.newBuilder().setChild(expr(n.child())));
    } else if (e instanceof NegativeExpr n) {
      b.setNegative(NegativeExprNode.newBuilder().setChild(expr(n.child())));
    } else if (e instanceof IsNullExpr n) {
      b.setIsNull(IsNullExprNode.newBuilder().setChild(expr(n.child())).setNegated(n.negated()));
    } else if (e instanceof IsTruthExpr t) {
      b.setIsTruth(
          IsTruthExprNode.newBuilder()
              .setChild(expr(t.child()))
              .setTestValue(EnumMapping.toNumber(TruthTestSpec.getDescriptor(), t.test())));
    } else if (e instanceof IsDistinctFromExpr d) {
      b.setIsDistinctFrom(
          IsDistinctFromExprNode.newBuilder()
              .setLeft(expr(d.left()))
              .setRight(expr(d.right()))
              .setNegated(d.negated()));
    } else if (e instanceof CaseExpr c) {
      CaseExprNode.Builder n =
          CaseExprNode.newBuilder()
              .addAllWhens(exprs(c.whens()))
              .addAllThens(exprs(c.thens()))
              .setDataType(ArrowSerde.type(c.dataType()));
      if (c.elseExpr() != null) {
        n.setElseExpr(expr(c.elseExpr()));
      }
      b.setCaseWhen(n);
    } else if (e instanceof CastExpr c) {
      b.setCast(
          CastExprNode.newBuilder()
              .setChild(expr(c.child()))
              .setDataType(ArrowSerde.type(c.dataType()))
              .setSafe(c.safe()));
    } else if (e instanceof CoalesceExpr c) {
      b.setCoalesce(
          CoalesceExprNode.newBuilder()
              .addAllArgs(exprs(c.args()))
              .setDataType(ArrowSerde.type(c.dataType())));
    } else if (e instanceof NullIfExpr n) {
      b.setNullIf(NullIfExprNode.newBuilder().setLeft(expr(n.left())).setRight(expr(n.right())));
    } else if (e instanceof SingleRowExpr s) {
      b.setSingleRow(
          SingleRowExprNode.newBuilder().setValue(expr(s.value())).setRows(expr(s.rows())));
    } else if (e instanceof InListExpr in) {
      b.setInList(
          InListExprNode.newBuilder()
              .setChild(expr(in.child()))
              .addAllList(exprs(in.list()))
              .setNegated(in.negated()));
    } else if (e instanceof LikeExpr l) {
      LikeExprNode.Builder n =
          LikeExprNode.newBuilder()
              .setChild(expr(l.child()))
              .setPattern(expr(l.pattern()))
              .setCaseInsensitive(l.caseInsensitive())
              .setNegated(l.negated())
              .setSimilar(l.similar());
      if (l.escape() != null) {
        n.setEscape(l.escape());
      }
      b.setLike(n);
    } else if (e instanceof MathExpr m) {
      b.setMath(
          MathExprNode.newBuilder()
              .setFunctionValue(EnumMapping.toNumber(MathFunctionSpec.getDescriptor(), m.fn()))
              .addAllArgs(exprs(m.args()))
              .setDataType(ArrowSerde.type(m.dataType())));
    } else if (e instanceof StringFunctionExpr s) {
      b.setStringFunction(
          StringFunctionExprNode.newBuilder()
              .setFunctionValue(EnumMapping.toNumber(StringFunctionSpec.getDescriptor(), s.fn()))
              .addAllArgs(exprs(s.args()))
              .setDataType(ArrowSerde.type(s.dataType())));
    } else if (e instanceof ScalarFunctionExpr s) {
      b.setScalarFunction(
          ScalarFunctionExprNode.newBuilder()
              .setFunctionValue(EnumMapping.toNumber(ScalarFunctionSpec.getDescriptor(), s.fn()))
              .addAllArgs(exprs(s.args()))
              .setDataType(ArrowSerde.type(s.dataType())));
    } else if (e instanceof ExtractExpr x) {
      b.setExtract(
          ExtractExprNode.newBuilder()
              .setFieldValue(EnumMapping.toNumber(ExtractFieldSpec.getDescriptor(), x.field()))
              .setChild(expr(x.child()))
              .setDataType(ArrowSerde.type(x.dataType())));
    } else if (e instanceof DateTruncExpr t) {
      b.setDateTrunc(
          DateTruncExprNode.newBuilder()
              .setUnitValue(EnumMapping.toNumber(DateTruncUnitSpec.getDescriptor(), t.unit()))
              .setChild(expr(t.child()))
              .setCeil(t.ceil())
              .setDataType(ArrowSerde.type(t.dataType())));
    } else if (e instanceof DateArithmeticExpr d) {
      b.setDateArithmetic(
          DateArithmeticExprNode.newBuilder()
              .setOpValue(EnumMapping.toNumber(DateArithmeticOpSpec.getDescriptor(), d.op()))
              .setLeft(expr(d.left()))
              .setRight(expr(d.right()))
              .setDataType(ArrowSerde.type(d.dataType())));
    } else if (e instanceof UdfExpr u) {
      b.setUdf(
          UdfExprNode.newBuilder()
              .setName(u.udf().name())
              .addAllArgs(exprs(u.args()))
              .setReturnType(ArrowSerde.type(u.udf().returnType())));
    } else {
      throw new PlanCodecException(
          "Cannot encode expression "
              + e.getClass().getName()
              + " ("
              + e
              + ") in "
              + node
              + ": it is not one of the binding's physical expressions, and only those travel to"
              + " executors; express the computation with a registered UDF instead");
    }
    return b.build();
  }

  List<PhysicalExprNode> exprs(List<PhysicalExpr> list) {
    List<PhysicalExprNode> out = new ArrayList<>(list.size());
    for (PhysicalExpr e : list) {
      out.add(expr(e));
    }
    return out;
  }
}
