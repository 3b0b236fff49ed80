package dev.quiver.binding.physical.aggregate;

import dev.quiver.binding.errors.QueryTypeException;
import dev.quiver.binding.physical.expr.Vectors;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * The intermediate-state schema of every aggregate function, and the factory choosing the
 * accumulator behind each call. The accumulators live one family per file ({@link CountAcc}, {@link
 * SumAccumulators}, {@link MinMaxAccumulators}, {@link SingleValueAcc}, {@link VarianceAcc}, {@link
 * BoolAcc}, {@link ValueAccumulators}, {@link CovarianceAcc}, {@link DistinctAcc}) over the
 * per-group arrays of {@link GroupStates}.
 */
public final class Accumulators {
  static final ArrowType INT64 = new ArrowType.Int(64, true);
  static final ArrowType FLOAT64 = new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
  static final ArrowType BOOL = ArrowType.Bool.INSTANCE;

  private Accumulators() {}

  /**
   * The state columns a PARTIAL aggregation emits for {@code call} (and FINAL consumes), in order:
   * COUNT: count; SUM and AVG: sum (BIGINT for integers, DOUBLE for floating point, DECIMAL(38, s)
   * for decimals), count of non-null inputs; MIN, MAX, ANY_VALUE: value (argument type); variances
   * and standard deviations: count, mean, m2 (sum of squared deviations); BOOL_AND, BOOL_OR: value;
   * SINGLE_VALUE: value, count of rows (NULL values included); ARG_MIN, ARG_MAX: value, key;
   * STRING_AGG: joined text, separator; COVAR_POP, COVAR_SAMP, CORR: count, means of x and y,
   * co-moment, m2 of x and y; the percentiles have none (holistic).
   */
  public static List<Field> stateFields(AggregateCall call) {
    String n = call.name();
    return switch (call.function()) {
      case COUNT -> List.of(notNull(n + "[count]", INT64));
      case SUM, AVG ->
          List.of(nullable(n + "[sum]", sumType(argType(call))), notNull(n + "[count]", INT64));
      case MIN, MAX, ANY_VALUE -> List.of(nullable(n + "[value]", argType(call)));
      case VAR_POP, VAR_SAMP, STDDEV_POP, STDDEV_SAMP ->
          List.of(
              notNull(n + "[count]", INT64),
              notNull(n + "[mean]", FLOAT64),
              notNull(n + "[m2]", FLOAT64));
      case BOOL_AND, BOOL_OR -> List.of(nullable(n + "[value]", BOOL));
      case SINGLE_VALUE ->
          List.of(nullable(n + "[value]", argType(call)), notNull(n + "[rows]", INT64));
      case ARG_MIN, ARG_MAX ->
          List.of(
              nullable(n + "[value]", argType(call)),
              nullable(n + "[key]", call.args().get(1).dataType()));
      case STRING_AGG ->
          List.of(
              nullable(n + "[text]", ArrowType.Utf8.INSTANCE),
              nullable(n + "[separator]", ArrowType.Utf8.INSTANCE));
      case COVAR_POP, COVAR_SAMP, CORR -> CovarianceAcc.stateFields(n);
      // Holistic: no state leaves the operator (SINGLE mode only).
      case MEDIAN, PERCENTILE_CONT, PERCENTILE_DISC -> List.of();
    };
  }

  /** The final output column of {@code call}. */
  public static Field outputField(AggregateCall call) {
    return call.function() == AggregateFunction.COUNT
        ? notNull(call.name(), call.returnType())
        : nullable(call.name(), call.returnType());
  }

  static Field nullable(String name, ArrowType type) {
    return new Field(name, FieldType.nullable(type), null);
  }

  static Field notNull(String name, ArrowType type) {
    return new Field(name, FieldType.notNullable(type), null);
  }

  private static ArrowType argType(AggregateCall call) {
    if (call.args().isEmpty()) {
      throw new QueryTypeException(
          call.function() + " needs an argument (in aggregate " + call.name() + ")");
    }
    return call.args().get(0).dataType();
  }

  private static ArrowType sumType(ArrowType arg) {
    return switch (Vectors.storage(arg)) {
      case LONG, NULL -> INT64;
      case DOUBLE -> FLOAT64;
      case DECIMAL -> new ArrowType.Decimal(38, Vectors.scale(arg), 128);
      default ->
          throw new QueryTypeException(
              "SUM/AVG need a numeric argument, got " + arg + "; cast it to a number");
    };
  }

  /** Creates the accumulator for {@code call}. */
  static Accumulator create(AggregateCall call, BufferAllocator allocator) {
    Accumulator acc = createPlain(call);
    if (call.distinct()) {
      List<Field> keyFields = new ArrayList<>();
      keyFields.add(nullable("group", INT64));
      for (int i = 0; i < call.args().size(); i++) {
        keyFields.add(nullable("arg" + i, call.args().get(i).dataType()));
      }
      return new DistinctAcc(acc, keyFields, allocator);
    }
    return acc;
  }

  private static Accumulator createPlain(AggregateCall call) {
    List<Field> state = stateFields(call);
    Field out = outputField(call);
    return switch (call.function()) {
      case COUNT -> new CountAcc(state, out);
      case SUM, AVG -> {
        boolean avg = call.function() == AggregateFunction.AVG;
        ArrowType arg = argType(call);
        yield switch (Vectors.storage(arg)) {
          case LONG, NULL -> new SumAccumulators.SumLongAcc(state, out, avg);
          case DOUBLE -> new SumAccumulators.SumDoubleAcc(state, out, avg);
          case DECIMAL -> new SumAccumulators.SumDecimalAcc(state, out, avg, Vectors.scale(arg));
          default -> throw new QueryTypeException("SUM/AVG need a numeric argument, got " + arg);
        };
      }
      case MIN, MAX, ANY_VALUE -> {
        int mode =
            call.function() == AggregateFunction.MIN
                ? MinMaxAccumulators.MIN
                : call.function() == AggregateFunction.MAX
                    ? MinMaxAccumulators.MAX
                    : MinMaxAccumulators.ANY;
        yield valueAcc(call, state, out, mode);
      }
      case SINGLE_VALUE ->
          new SingleValueAcc(
              valueAcc(call, state.subList(0, 1), out, MinMaxAccumulators.ANY), state.get(1), call);
      case VAR_POP, VAR_SAMP, STDDEV_POP, STDDEV_SAMP ->
          new VarianceAcc(state, out, call.function());
      case BOOL_AND, BOOL_OR ->
          new BoolAcc(state, out, call.function() == AggregateFunction.BOOL_AND);
      case ARG_MIN, ARG_MAX ->
          new ValueAccumulators.ArgExtremeAcc(
              state, out, call.function() == AggregateFunction.ARG_MAX);
      case STRING_AGG -> new ValueAccumulators.StringAggAcc(state, out, call.orderDescending());
      case COVAR_POP, COVAR_SAMP, CORR -> new CovarianceAcc(state, out, call.function());
      case MEDIAN, PERCENTILE_CONT, PERCENTILE_DISC ->
          new PercentileAcc(
              out,
              call.function(),
              !call.orderDescending().isEmpty() && call.orderDescending().get(0));
    };
  }

  private static Accumulator valueAcc(AggregateCall call, List<Field> state, Field out, int mode) {
    return switch (Vectors.storage(argType(call))) {
      case LONG, BOOL, NULL -> new MinMaxAccumulators.MinMaxLongAcc(state, out, mode);
      case DOUBLE -> new MinMaxAccumulators.MinMaxDoubleAcc(state, out, mode);
      case DECIMAL -> new MinMaxAccumulators.MinMaxDecimalAcc(state, out, mode);
      case BYTES -> new MinMaxAccumulators.MinMaxBytesAcc(state, out, mode);
    };
  }
}
