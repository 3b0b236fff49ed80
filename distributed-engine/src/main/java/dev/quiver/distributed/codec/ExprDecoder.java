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
import dev.quiver.binding.udf.ScalarUdf;
import dev.quiver.distributed.proto.ArithmeticExprNode;
import dev.quiver.distributed.proto.ArithmeticOpSpec;
import dev.quiver.distributed.proto.CardinalityExprNode;
import dev.quiver.distributed.proto.CaseExprNode;
import dev.quiver.distributed.proto.ColumnExprNode;
import dev.quiver.distributed.proto.ComparisonOpSpec;
import dev.quiver.distributed.proto.DateArithmeticExprNode;
import dev.quiver.distributed.proto.DateArithmeticOpSpec;
import dev.quiver.distributed.proto.DateTruncExprNode;
import dev.quiver.distributed.proto.DateTruncUnitSpec;
import dev.quiver.distributed.proto.ElementExprNode;
import dev.quiver.distributed.proto.ExtractExprNode;
import dev.quiver.distributed.proto.ExtractFieldSpec;
import dev.quiver.distributed.proto.LikeExprNode;
import dev.quiver.distributed.proto.LiteralExprNode;
import dev.quiver.distributed.proto.LogicalOpSpec;
import dev.quiver.distributed.proto.MathFunctionSpec;
import dev.quiver.distributed.proto.PhysicalExprNode;
import dev.quiver.distributed.proto.ScalarFunctionSpec;
import dev.quiver.distributed.proto.StringFunctionSpec;
import dev.quiver.distributed.proto.StructFieldExprNode;
import dev.quiver.distributed.proto.TruthTestSpec;
import dev.quiver.distributed.proto.UdfExprNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/** Decodes physical expressions; UDFs are looked up among those installed on this process. */
final class ExprDecoder {
  private final Function<String, Optional<ScalarUdf>> udfs;

  ExprDecoder(Function<String, Optional<ScalarUdf>> udfs) {
    this.udfs = udfs;
  }

  PhysicalExpr expr(PhysicalExprNode e) {
    return switch (e.getExprCase()) {
      case COLUMN -> {
        ColumnExprNode c = e.getColumn();
        if (!c.getDataField().isEmpty()) {
          List<Field> fields =
              ArrowSerde.schema(c.getDataField(), "column " + c.getName()).getFields();
          if (fields.size() != 1) {
            throw new PlanCodecException("The type of column " + c.getName() + " is not one field");
          }
          yield ColumnExpr.of(c.getIndex(), fields.get(0));
        }
        yield new ColumnExpr(
            c.getIndex(),
            c.getName(),
            ArrowSerde.type(c.getDataType(), "column " + c.getName()),
            c.getNullable());
      }
      case STRUCT_FIELD -> {
        StructFieldExprNode f = e.getStructField();
        yield new StructFieldExpr(expr(f.getInput()), f.getIndex());
      }
      case ELEMENT -> {
        ElementExprNode el = e.getElement();
        yield new ElementExpr(expr(el.getContainer()), expr(el.getKey()));
      }
      case CARDINALITY -> {
        CardinalityExprNode card = e.getCardinality();
        yield new CardinalityExpr(
            expr(card.getContainer()), ArrowSerde.type(card.getDataType(), "a cardinality"));
      }
      case LITERAL -> {
        LiteralExprNode l = e.getLiteral();
        ArrowType type = ArrowSerde.type(l.getDataType(), "a literal");
        yield l.hasValue()
            ? new LiteralExpr(ScalarValues.decode(l.getValue()), type)
            : LiteralExpr.nullOf(type);
      }
      case ARITHMETIC -> {
        ArithmeticExprNode a = e.getArithmetic();
        yield new ArithmeticExpr(
            EnumMapping.fromNumber(
                ArithmeticOpSpec.getDescriptor(), a.getOpValue(), ArithmeticExpr.Op.class),
            expr(a.getLeft()),
            expr(a.getRight()),
            ArrowSerde.type(a.getDataType(), "an arithmetic expression"));
      }
      case COMPARISON ->
          new ComparisonExpr(
              EnumMapping.fromNumber(
                  ComparisonOpSpec.getDescriptor(),
                  e.getComparison().getOpValue(),
                  ComparisonExpr.Op.class),
              expr(e.getComparison().getLeft()),
              expr(e.getComparison().getRight()));
      case LOGICAL ->
          new LogicalExpr(
              EnumMapping.fromNumber(
                  LogicalOpSpec.getDescriptor(), e.getLogical().getOpValue(), LogicalExpr.Op.class),
              exprs(e.getLogical().getOperandsList()));
      case NOT -> new NotExpr(expr(e.getNot().getChild()));
      case NEGATIVE -> new NegativeExpr(expr(e.getNegative().getChild()));
      case IS_NULL -> new IsNullExpr(expr(e.getIsNull().getChild()), e.getIsNull().getNegated());
      case IS_TRUTH ->
          new IsTruthExpr(
              expr(e.getIsTruth().getChild()),
              EnumMapping.fromNumber(
                  TruthTestSpec.getDescriptor(),
                  e.getIsTruth().getTestValue(),
                  IsTruthExpr.Test.class));
      case IS_DISTINCT_FROM ->
          new IsDistinctFromExpr(
              expr(e.getIsDistinctFrom().getLeft()),
              expr(e.getIsDistinctFrom().getRight()),
              e.getIsDistinctFrom().getNegated());
      case CASE_WHEN -> {
        CaseExprNode c = e.getCaseWhen();
        yield new CaseExpr(
            exprs(c.getWhensList()),
            exprs(c.getThensList()),
            c.hasElseExpr() ? expr(c.getElseExpr()) : null,
            ArrowSerde.type(c.getDataType(), "a CASE expression"));
      }
      case CAST ->
          new CastExpr(
              expr(e.getCast().getChild()),
              ArrowSerde.type(e.getCast().getDataType(), "a CAST"),
              e.getCast().getSafe());
      case COALESCE ->
          new CoalesceExpr(
              exprs(e.getCoalesce().getArgsList()),
              ArrowSerde.type(e.getCoalesce().getDataType(), "a COALESCE"));
      case NULL_IF -> new NullIfExpr(expr(e.getNullIf().getLeft()), expr(e.getNullIf().getRight()));
      case SINGLE_ROW ->
          new SingleRowExpr(expr(e.getSingleRow().getValue()), expr(e.getSingleRow().getRows()));
      case IN_LIST ->
          new InListExpr(
              expr(e.getInList().getChild()),
              exprs(e.getInList().getListList()),
              e.getInList().getNegated());
      case LIKE -> {
        LikeExprNode l = e.getLike();
        yield new LikeExpr(
            expr(l.getChild()),
            expr(l.getPattern()),
            l.hasEscape() ? l.getEscape() : null,
            l.getCaseInsensitive(),
            l.getNegated(),
            l.getSimilar());
      }
      case MATH ->
          new MathExpr(
              EnumMapping.fromNumber(
                  MathFunctionSpec.getDescriptor(),
                  e.getMath().getFunctionValue(),
                  MathExpr.Fn.class),
              exprs(e.getMath().getArgsList()),
              ArrowSerde.type(e.getMath().getDataType(), "a math function"));
      case STRING_FUNCTION ->
          new StringFunctionExpr(
              EnumMapping.fromNumber(
                  StringFunctionSpec.getDescriptor(),
                  e.getStringFunction().getFunctionValue(),
                  StringFunctionExpr.Fn.class),
              exprs(e.getStringFunction().getArgsList()),
              ArrowSerde.type(e.getStringFunction().getDataType(), "a string function"));
      case SCALAR_FUNCTION ->
          new ScalarFunctionExpr(
              EnumMapping.fromNumber(
                  ScalarFunctionSpec.getDescriptor(),
                  e.getScalarFunction().getFunctionValue(),
                  ScalarFunctionExpr.Fn.class),
              exprs(e.getScalarFunction().getArgsList()),
              ArrowSerde.type(e.getScalarFunction().getDataType(), "a scalar function"));
      case EXTRACT -> {
        ExtractExprNode x = e.getExtract();
        yield new ExtractExpr(
            EnumMapping.fromNumber(
                ExtractFieldSpec.getDescriptor(), x.getFieldValue(), ExtractExpr.Field.class),
            expr(x.getChild()),
            ArrowSerde.type(x.getDataType(), "an EXTRACT"));
      }
      case DATE_TRUNC -> {
        DateTruncExprNode t = e.getDateTrunc();
        yield new DateTruncExpr(
            EnumMapping.fromNumber(
                DateTruncUnitSpec.getDescriptor(), t.getUnitValue(), DateTruncExpr.Unit.class),
            expr(t.getChild()),
            t.getCeil(),
            ArrowSerde.type(t.getDataType(), "a DATE_TRUNC"));
      }
      case DATE_ARITHMETIC -> {
        DateArithmeticExprNode d = e.getDateArithmetic();
        yield new DateArithmeticExpr(
            EnumMapping.fromNumber(
                DateArithmeticOpSpec.getDescriptor(), d.getOpValue(), DateArithmeticExpr.Op.class),
            expr(d.getLeft()),
            expr(d.getRight()),
            ArrowSerde.type(d.getDataType(), "date arithmetic"));
      }
      case UDF -> udf(e.getUdf());
      case EXPR_NOT_SET ->
          throw new PlanCodecException(
              "unknown physical expression"
                  + PlanDecoder.unknownFields(e)
                  + " in the plan: this executor does not know it (a newer client?)");
    };
  }

  List<PhysicalExpr> exprs(List<PhysicalExprNode> list) {
    List<PhysicalExpr> out = new ArrayList<>(list.size());
    for (PhysicalExprNode e : list) {
      out.add(expr(e));
    }
    return out;
  }

  private PhysicalExpr udf(UdfExprNode u) {
    ScalarUdf udf =
        udfs.apply(u.getName())
            .orElseThrow(
                () ->
                    new PlanCodecException(
                        "UDF '"
                            + u.getName()
                            + "' is not installed on this executor; put the jar that provides it"
                            + " on the executor's --classpath"));
    ArrowType planned = ArrowSerde.type(u.getReturnType(), "UDF '" + u.getName() + "'");
    if (!planned.equals(udf.returnType())) {
      throw new PlanCodecException(
          "UDF '"
              + u.getName()
              + "' on this executor returns "
              + udf.returnType()
              + " but the client planned it returning "
              + planned
              + "; install the same version of the UDF on the client and the executors");
    }
    return new UdfExpr(udf, exprs(u.getArgsList()));
  }
}
