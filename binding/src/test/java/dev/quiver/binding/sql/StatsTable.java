package dev.quiver.binding.sql;

import dev.quiver.binding.datasource.ScanRequest;
import dev.quiver.binding.datasource.TableProvider;
import dev.quiver.binding.datasource.TableStatistics;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.exchange.RepartitionExec;
import dev.quiver.binding.physical.operator.EmptyExec;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A table with a schema and a row count but no rows, for planning tests: its scan yields {@code
 * targetPartitions} empty partitions and records the last request it got.
 */
final class StatsTable implements TableProvider {
  private final Schema schema;
  private final long rows;
  final AtomicReference<ScanRequest> lastRequest = new AtomicReference<>();

  StatsTable(long rows, String... columns) {
    this.rows = rows;
    List<Field> fields = new ArrayList<>();
    for (String c : columns) {
      String[] parts = c.trim().split("\\s+", 2);
      fields.add(new Field(parts[0], FieldType.nullable(type(parts[1])), null));
    }
    this.schema = new Schema(fields);
  }

  static ArrowType type(String t) {
    String u = t.toUpperCase();
    if (u.startsWith("DECIMAL")) {
      String[] ps = u.replaceAll("[^0-9,]", "").split(",");
      return new ArrowType.Decimal(Integer.parseInt(ps[0]), Integer.parseInt(ps[1]), 128);
    }
    return switch (u) {
      case "INT" -> new ArrowType.Int(32, true);
      case "BIGINT" -> new ArrowType.Int(64, true);
      case "DOUBLE" -> new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
      case "VARCHAR" -> ArrowType.Utf8.INSTANCE;
      case "DATE" -> new ArrowType.Date(DateUnit.DAY);
      case "BOOLEAN" -> ArrowType.Bool.INSTANCE;
      default -> throw new IllegalArgumentException(t);
    };
  }

  @Override
  public Schema schema() {
    return schema;
  }

  @Override
  public TableStatistics statistics() {
    return TableStatistics.of(rows, rows * 100);
  }

  @Override
  public ExecutionPlan scan(ScanRequest request) {
    lastRequest.set(request);
    List<Field> fields = new ArrayList<>();
    if (request.projection() == null) {
      fields.addAll(schema.getFields());
    } else {
      for (int i : request.projection()) {
        fields.add(schema.getFields().get(i));
      }
    }
    ExecutionPlan empty = new EmptyExec(new Schema(fields), false);
    int n = request.targetPartitions();
    return n > 1 ? new RepartitionExec(empty, Partitioning.roundRobin(n)) : empty;
  }
}
