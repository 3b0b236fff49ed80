package dev.quiver.binding.physical.scan;

import java.util.ArrayList;
import java.util.List;
import org.apache.parquet.format.FieldRepetitionType;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.SchemaElement;

/**
 * A Parquet file's schema as the tree its footer flattens into a pre-order list: each node with its
 * children and the ordinal of its first leaf (column chunks follow the leaves in that order).
 */
record ParquetColumnTree(SchemaElement element, List<ParquetColumnTree> children, int firstLeaf) {

  /** The file's top-level columns. */
  static List<ParquetColumnTree> topLevel(FileMetaData m, String file) {
    List<SchemaElement> schema = m.getSchema();
    if (schema.isEmpty()) {
      throw ParquetFooterBytes.corrupt(file, "its schema is empty");
    }
    int[] next = {1, 0};
    List<ParquetColumnTree> top = new ArrayList<>();
    for (int i = 0; i < schema.get(0).getNum_children(); i++) {
      top.add(read(schema, next, file));
    }
    if (next[0] != schema.size()) {
      throw ParquetFooterBytes.corrupt(file, "its schema tree does not match its element count");
    }
    return top;
  }

  /** Reads the node at {@code next[0]}; {@code next[1]} counts the leaves before it. */
  private static ParquetColumnTree read(List<SchemaElement> schema, int[] next, String file) {
    if (next[0] >= schema.size()) {
      throw ParquetFooterBytes.corrupt(file, "its schema tree is cut short");
    }
    SchemaElement e = schema.get(next[0]++);
    int firstLeaf = next[1];
    if (isLeaf(e)) {
      next[1]++;
      return new ParquetColumnTree(e, List.of(), firstLeaf);
    }
    List<ParquetColumnTree> children = new ArrayList<>();
    for (int i = 0; i < e.getNum_children(); i++) {
      children.add(read(schema, next, file));
    }
    return new ParquetColumnTree(e, List.copyOf(children), firstLeaf);
  }

  private static boolean isLeaf(SchemaElement e) {
    return e.isSetType() || !e.isSetNum_children();
  }

  String name() {
    return element.getName();
  }

  boolean isLeaf() {
    return isLeaf(element);
  }

  /** Whether this node is a plain column: a primitive neither repeated nor inside a group. */
  boolean isFlat() {
    return isLeaf() && element.getRepetition_type() != FieldRepetitionType.REPEATED;
  }

  /** How many leaves (column chunks) lie under this node. */
  int leafCount() {
    if (isLeaf()) {
      return 1;
    }
    int n = 0;
    for (ParquetColumnTree c : children) {
      n += c.leafCount();
    }
    return n;
  }

  /** The top-level column named {@code name}, or null. */
  static ParquetColumnTree find(List<ParquetColumnTree> columns, String name) {
    for (ParquetColumnTree c : columns) {
      if (c.name().equals(name)) {
        return c;
      }
    }
    return null;
  }
}
