package dev.quiver.binding.physical.expr;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** Builds small batches, evaluates expressions and checks that no memory leaks. */
public abstract class ExprTestSupport {
  public static final ArrowType INT = new ArrowType.Int(32, true);
  public static final ArrowType BIGINT = new ArrowType.Int(64, true);
  public static final ArrowType DOUBLE = new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
  public static final ArrowType UTF8 = ArrowType.Utf8.INSTANCE;
  public static final ArrowType BOOL = ArrowType.Bool.INSTANCE;
  public static final ArrowType DATE = new ArrowType.Date(DateUnit.DAY);
  public static final ArrowType TIMESTAMP = new ArrowType.Timestamp(TimeUnit.MICROSECOND, null);

  protected BufferAllocator allocator;
  private final List<VectorSchemaRoot> batches = new ArrayList<>();

  @BeforeEach
  void openAllocator() {
    allocator = new RootAllocator(256L << 20);
  }

  @AfterEach
  void closeAllocator() {
    batches.forEach(VectorSchemaRoot::close);
    batches.clear();
    assertThat(allocator.getAllocatedMemory()).as("outstanding bytes").isZero();
    allocator.close();
  }

  public static ArrowType decimal(int p, int s) {
    return new ArrowType.Decimal(p, s, 128);
  }

  /** A column definition for {@link #batch}. */
  public record Col(String name, ArrowType type, List<Object> values) {}

  public static Col col(String name, ArrowType type, Object... values) {
    return new Col(name, type, Arrays.asList(values));
  }

  /** A batch with the given columns (all of the same length); closed after the test. */
  protected VectorSchemaRoot batch(Col... cols) {
    List<FieldVector> vectors = new ArrayList<>();
    List<Field> fields = new ArrayList<>();
    int n = cols.length == 0 ? 1 : cols[0].values().size();
    for (Col c : cols) {
      FieldVector v = Vectors.allocate(c.type(), n, allocator);
      for (int i = 0; i < n; i++) {
        Vectors.setValue(v, i, c.values().get(i));
      }
      v.setValueCount(n);
      Field f = Field.nullable(c.name(), c.type());
      vectors.add(v);
      fields.add(f);
    }
    VectorSchemaRoot root = new VectorSchemaRoot(fields, vectors, n);
    root.setRowCount(n);
    batches.add(root);
    return root;
  }

  /** A batch with no columns and {@code n} rows. */
  protected VectorSchemaRoot rows(int n) {
    VectorSchemaRoot root = new VectorSchemaRoot(List.of(), List.of(), n);
    root.setRowCount(n);
    batches.add(root);
    return root;
  }

  public static ColumnExpr column(VectorSchemaRoot batch, int index) {
    Field f = batch.getSchema().getFields().get(index);
    return new ColumnExpr(index, f.getName(), f.getType(), true);
  }

  public static LiteralExpr lit(Object value, ArrowType type) {
    return new LiteralExpr(value, type);
  }

  /** Evaluates and returns the values in the literal convention; the vector is closed. */
  protected List<Object> eval(PhysicalExpr e, VectorSchemaRoot batch) {
    try (FieldVector v = e.evaluate(batch, allocator)) {
      assertThat(v.getValueCount()).isEqualTo(batch.getRowCount());
      List<Object> out = new ArrayList<>();
      for (int i = 0; i < v.getValueCount(); i++) {
        out.add(Vectors.getValue(v, i));
      }
      return out;
    }
  }

  public static List<Object> list(Object... values) {
    return Arrays.asList(values);
  }
}
