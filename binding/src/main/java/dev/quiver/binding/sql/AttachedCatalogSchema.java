package dev.quiver.binding.sql;

import dev.quiver.binding.datasource.TableCatalog;
import dev.quiver.binding.datasource.TableProvider;
import dev.quiver.binding.logical.ProviderTable;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.calcite.schema.Schema;
import org.apache.calcite.schema.Table;
import org.apache.calcite.schema.impl.AbstractSchema;

/**
 * An attached {@link TableCatalog} as the Calcite schema the validator walks for {@code
 * catalog.namespace.table}: namespaces are sub-schemas, and a namespace loads only the table a
 * statement names (never all of them).
 */
final class AttachedCatalogSchema extends AbstractSchema {
  private final String name;
  private final TableCatalog catalog;

  AttachedCatalogSchema(String name, TableCatalog catalog) {
    this.name = name;
    this.catalog = catalog;
  }

  @Override
  protected Map<String, Schema> getSubSchemaMap() {
    Map<String, Schema> out = new LinkedHashMap<>();
    for (String ns : catalog.namespaces()) {
      out.put(ns, new NamespaceSchema(name + "." + ns, ns));
    }
    return out;
  }

  /** One namespace; {@link #getTable} loads the named table alone. */
  private final class NamespaceSchema implements Schema {
    private final String qualified;
    private final String namespace;

    NamespaceSchema(String qualified, String namespace) {
      this.qualified = qualified;
      this.namespace = namespace;
    }

    @Override
    public Table getTable(String table) {
      TableProvider provider = catalog.table(namespace, table);
      return provider == null ? null : new ProviderTable(qualified + "." + table, provider);
    }

    @Override
    public Set<String> getTableNames() {
      return new LinkedHashSet<>(catalog.tables(namespace));
    }

    @Override
    public org.apache.calcite.rel.type.RelProtoDataType getType(String n) {
      return null;
    }

    @Override
    public Set<String> getTypeNames() {
      return Set.of();
    }

    @Override
    public java.util.Collection<org.apache.calcite.schema.Function> getFunctions(String n) {
      return java.util.List.of();
    }

    @Override
    public Set<String> getFunctionNames() {
      return Set.of();
    }

    @Override
    public Schema getSubSchema(String n) {
      return null;
    }

    @Override
    public Set<String> getSubSchemaNames() {
      return Set.of();
    }

    @Override
    public org.apache.calcite.linq4j.tree.Expression getExpression(
        org.apache.calcite.schema.SchemaPlus parentSchema, String n) {
      return org.apache.calcite.schema.Schemas.subSchemaExpression(
          parentSchema, n, NamespaceSchema.class);
    }

    @Override
    public boolean isMutable() {
      return false;
    }

    @Override
    public Schema snapshot(org.apache.calcite.schema.SchemaVersion version) {
      return this;
    }

    @Override
    public String toString() {
      return qualified.toLowerCase(Locale.ROOT);
    }
  }
}
