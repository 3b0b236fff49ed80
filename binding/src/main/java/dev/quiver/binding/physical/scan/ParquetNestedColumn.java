package dev.quiver.binding.physical.scan;

import dev.quiver.binding.errors.DataSourceException;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.format.ConvertedType;
import org.apache.parquet.format.FieldRepetitionType;
import org.apache.parquet.format.SchemaElement;

/**
 * Reads a top-level column that is nested (structs, lists, maps and any nesting of them, or a bare
 * repeated field) from its leaf columns' repetition and definition levels, following the Parquet
 * format's record shredding. Each leaf is read with parquet-java's column reader (so every encoding
 * it knows is read), its values written straight into the leaf vector of the target; the validity
 * of every struct and the offsets of every list or map are then derived from the levels of the
 * first leaf under it. Lists follow the format's backward-compatibility rules: the standard three
 * levels, two-level lists whose repeated field is the element, and repeated fields outside any LIST
 * group.
 */
final class ParquetNestedColumn {
  /** A node of the column: where its levels come from and the levels that mark it. */
  private sealed interface Node permits Leaf, Struct, Repeated {}

  /**
   * A primitive: present when its definition level is {@code def}, a slot of its parent when the
   * level is at least {@code ancestorDef} (below that, an enclosing list is empty or null).
   */
  record Leaf(
      int slot,
      ParquetColumnTree column,
      String[] path,
      ParquetValueKind kind,
      int def,
      int rep,
      int ancestorDef)
      implements Node {}

  /** A struct, null where the level is below {@code def}. */
  private record Struct(int firstLeaf, int def, int rep, int ancestorDef, List<Node> children)
      implements Node {}

  /**
   * A list or map at repetition level {@code rep}: null below {@code def}, an element where the
   * level is at least {@code elementDef} (a map's element is its key-value struct).
   */
  private record Repeated(
      int firstLeaf, int def, int rep, int ancestorDef, int elementDef, Node element)
      implements Node {}

  private final Field field;
  private final Node root;
  private final List<Leaf> leaves = new ArrayList<>();
  private final String file;

  private ParquetNestedColumn(ParquetColumnTree column, Field target, String file) {
    this.field = target;
    this.file = file;
    this.root = plan(column, target, new String[0], 0, 0, 0);
  }

  /** The plan for reading file column {@code column} into a vector of {@code target}'s type. */
  static ParquetNestedColumn of(ParquetColumnTree column, Field target, String file) {
    return new ParquetNestedColumn(column, target, file);
  }

  /** The leaf columns read, in the order of {@link Reader}'s column readers. */
  List<Leaf> leaves() {
    return leaves;
  }

  private Node plan(
      ParquetColumnTree p, Field target, String[] parent, int parentDef, int rep, int ancestorDef) {
    SchemaElement e = p.element();
    String[] path = append(parent, p.name());
    int def = parentDef + (e.getRepetition_type() == FieldRepetitionType.REQUIRED ? 0 : 1);
    if (e.getRepetition_type() == FieldRepetitionType.REPEATED) {
      // A repeated field outside a LIST or MAP group: a list of required elements.
      int first = leaves.size();
      Node element =
          node(p, onlyChild(target, ArrowType.ArrowTypeID.List, path), path, def, rep + 1, def);
      return new Repeated(first, parentDef, rep, ancestorDef, def, element);
    }
    return node(p, target, path, def, rep, ancestorDef);
  }

  /** The node for {@code p} whose own definition level is already counted in {@code def}. */
  private Node node(
      ParquetColumnTree p, Field target, String[] path, int def, int rep, int ancestorDef) {
    SchemaElement e = p.element();
    int first = leaves.size();
    if (p.isLeaf()) {
      ParquetValueKind kind = ParquetValueKind.of(e, target.getType());
      if (kind == null) {
        throw mismatch(path, target, "a " + e.getType() + " value");
      }
      Leaf leaf = new Leaf(first, p, path, kind, def, rep, ancestorDef);
      leaves.add(leaf);
      return leaf;
    }
    List<ParquetColumnTree> children = p.children();
    boolean oneRepeated =
        children.size() == 1
            && children.get(0).element().getRepetition_type() == FieldRepetitionType.REPEATED;
    if (oneRepeated && isList(e)) {
      ParquetColumnTree repeated = children.get(0);
      String[] at = append(path, repeated.name());
      Field item = onlyChild(target, ArrowType.ArrowTypeID.List, path);
      Node element =
          threeLevel(p, repeated)
              ? plan(repeated.children().get(0), item, at, def + 1, rep + 1, def + 1)
              : node(repeated, item, at, def + 1, rep + 1, def + 1);
      return new Repeated(first, def, rep, ancestorDef, def + 1, element);
    }
    if (oneRepeated && isMap(e) && children.get(0).children().size() == 2) {
      ParquetColumnTree keyValue = children.get(0);
      String[] at = append(path, keyValue.name());
      Field entries = onlyChild(target, ArrowType.ArrowTypeID.Map, path);
      if (entries.getChildren().size() != 2) {
        throw mismatch(path, target, "a map");
      }
      List<Node> parts = new ArrayList<>(2);
      for (int i = 0; i < 2; i++) {
        parts.add(
            plan(
                keyValue.children().get(i),
                entries.getChildren().get(i),
                at,
                def + 1,
                rep + 1,
                def + 1));
      }
      Node element = new Struct(first, def + 1, rep + 1, def + 1, parts);
      return new Repeated(first, def, rep, ancestorDef, def + 1, element);
    }
    if (target.getType().getTypeID() != ArrowType.ArrowTypeID.Struct) {
      throw mismatch(path, target, "a group");
    }
    List<Node> parts = new ArrayList<>();
    for (Field child : target.getChildren()) {
      ParquetColumnTree c = ParquetColumnTree.find(children, child.getName());
      if (c == null) {
        throw new DataSourceException(
            "Parquet file "
                + file
                + ": column "
                + String.join(".", path)
                + " has no field "
                + child.getName());
      }
      parts.add(plan(c, child, path, def, rep, ancestorDef));
    }
    return new Struct(first, def, rep, ancestorDef, parts);
  }

  /**
   * Whether the repeated group of a LIST holds the element (three levels) rather than being it: the
   * format's backward-compatibility rules make it the element when it is a primitive, has several
   * fields, or is named {@code array} or {@code <list>_tuple}.
   */
  private static boolean threeLevel(ParquetColumnTree list, ParquetColumnTree repeated) {
    return !repeated.isLeaf()
        && repeated.children().size() == 1
        && !repeated.name().equals("array")
        && !repeated.name().equals(list.name() + "_tuple");
  }

  private static boolean isList(SchemaElement e) {
    return e.isSetLogicalType() && e.getLogicalType().isSetLIST()
        || e.isSetConverted_type() && e.getConverted_type() == ConvertedType.LIST;
  }

  private static boolean isMap(SchemaElement e) {
    return e.isSetLogicalType() && e.getLogicalType().isSetMAP()
        || e.isSetConverted_type()
            && (e.getConverted_type() == ConvertedType.MAP
                || e.getConverted_type() == ConvertedType.MAP_KEY_VALUE);
  }

  private Field onlyChild(Field target, ArrowType.ArrowTypeID type, String[] path) {
    if (target.getType().getTypeID() != type || target.getChildren().size() != 1) {
      throw mismatch(path, target, type == ArrowType.ArrowTypeID.Map ? "a map" : "a list");
    }
    return target.getChildren().get(0);
  }

  private DataSourceException mismatch(String[] path, Field target, String what) {
    return new DataSourceException(
        "Parquet file "
            + file
            + ": column "
            + String.join(".", path)
            + " is "
            + what
            + ", which cannot be read as "
            + target.getType());
  }

  private static String[] append(String[] path, String name) {
    String[] out = java.util.Arrays.copyOf(path, path.length + 1);
    out[path.length] = name;
    return out;
  }

  /** Reads the column from one row group's leaf column readers. */
  Reader open(ColumnReader[] readers) {
    return new Reader(readers);
  }

  /** One row group's reading of the column, a batch of records at a time. */
  final class Reader {
    private final ColumnReader[] readers;
    private final long[] left;

    /** Each leaf's repetition and definition levels of the current batch. */
    private final int[][] reps;

    private final int[][] defs;
    private final int[] counts;

    private Reader(ColumnReader[] readers) {
      this.readers = readers;
      int n = readers.length;
      this.left = new long[n];
      this.reps = new int[n][];
      this.defs = new int[n][];
      this.counts = new int[n];
      for (int i = 0; i < n; i++) {
        left[i] = readers[i].getTotalValueCount();
        reps[i] = new int[64];
        defs[i] = new int[64];
      }
    }

    /** The next {@code rows} records as one vector of the column's type. */
    FieldVector read(int rows, BufferAllocator allocator) {
      FieldVector vector = field.createVector(allocator);
      try {
        vector.setInitialCapacity(rows);
        vector.allocateNew();
        readLeaves(root, vector, rows);
        assemble(root, vector);
        return vector;
      } catch (RuntimeException e) {
        vector.close();
        throw e;
      }
    }

    private void readLeaves(Node node, FieldVector vector, int rows) {
      if (node instanceof Leaf leaf) {
        readLeaf(leaf, vector, rows);
      } else if (node instanceof Struct s) {
        List<FieldVector> children = vector.getChildrenFromFields();
        for (int i = 0; i < s.children().size(); i++) {
          readLeaves(s.children().get(i), children.get(i), rows);
        }
      } else if (node instanceof Repeated r) {
        readLeaves(r.element(), ((ListVector) vector).getDataVector(), rows);
      }
    }

    /** Reads the levels of {@code rows} records of one leaf and writes its values. */
    private void readLeaf(Leaf leaf, FieldVector vector, int rows) {
      ColumnReader r = readers[leaf.slot()];
      int[] rep = reps[leaf.slot()];
      int[] def = defs[leaf.slot()];
      BaseFixedWidthVector fixed = vector instanceof BaseFixedWidthVector f ? f : null;
      ParquetValueKind kind = leaf.kind();
      int maxDef = leaf.def();
      int ancestorDef = leaf.ancestorDef();
      long remaining = left[leaf.slot()];
      int n = 0;
      int records = 0;
      int slot = 0;
      for (; remaining > 0; remaining--, n++) {
        int rl = r.getCurrentRepetitionLevel();
        if (rl == 0) {
          if (records == rows) {
            break;
          }
          records++;
        }
        int dl = r.getCurrentDefinitionLevel();
        if (n == rep.length) {
          rep = java.util.Arrays.copyOf(rep, n * 2);
          def = java.util.Arrays.copyOf(def, n * 2);
        }
        rep[n] = rl;
        def[n] = dl;
        if (dl >= ancestorDef) {
          if (dl == maxDef) {
            if (fixed != null) {
              while (slot >= fixed.getValueCapacity()) {
                fixed.reAlloc();
              }
            }
            kind.copy(r, vector, slot);
          }
          slot++;
        }
        r.consume();
      }
      if (records != rows) {
        throw new DataSourceException(
            "Parquet file "
                + file
                + ": column "
                + String.join(".", leaf.path())
                + " ends after "
                + records
                + " of "
                + rows
                + " rows");
      }
      left[leaf.slot()] = remaining;
      reps[leaf.slot()] = rep;
      defs[leaf.slot()] = def;
      counts[leaf.slot()] = n;
      vector.setValueCount(slot);
    }

    /** Sets the validity of structs and the offsets of lists from the levels read. */
    private void assemble(Node node, FieldVector vector) {
      if (node instanceof Struct s) {
        StructVector v = (StructVector) vector;
        List<FieldVector> children = v.getChildrenFromFields();
        for (int i = 0; i < s.children().size(); i++) {
          assemble(s.children().get(i), children.get(i));
        }
        int[] rep = reps[s.firstLeaf()];
        int[] def = defs[s.firstLeaf()];
        int n = counts[s.firstLeaf()];
        int slot = 0;
        for (int i = 0; i < n; i++) {
          if (rep[i] <= s.rep() && def[i] >= s.ancestorDef()) {
            if (def[i] >= s.def()) {
              v.setIndexDefined(slot);
            } else {
              v.setNull(slot);
            }
            slot++;
          }
        }
        v.setValueCount(slot);
      } else if (node instanceof Repeated r) {
        ListVector v = (ListVector) vector;
        assemble(r.element(), v.getDataVector());
        int[] rep = reps[r.firstLeaf()];
        int[] def = defs[r.firstLeaf()];
        int n = counts[r.firstLeaf()];
        int slot = -1;
        int size = 0;
        boolean open = false;
        for (int i = 0; i < n; i++) {
          int rl = rep[i];
          int dl = def[i];
          if (rl <= r.rep() && dl >= r.ancestorDef()) {
            if (open) {
              v.endValue(slot, size);
            }
            slot++;
            size = 0;
            open = dl >= r.def();
            if (open) {
              v.startNewValue(slot);
            } else {
              v.setNull(slot);
            }
          }
          if (rl <= r.rep() + 1 && dl >= r.elementDef()) {
            size++;
          }
        }
        if (open) {
          v.endValue(slot, size);
        }
        v.setValueCount(slot + 1);
      }
    }
  }
}
