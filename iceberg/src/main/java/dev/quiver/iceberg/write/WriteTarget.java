package dev.quiver.iceberg.write;

import java.util.Map;
import org.apache.iceberg.LocationProviders;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.io.LocationProvider;

/**
 * What a task needs of a table to write its data files, without its catalog or metadata files: so
 * that a plan carries it to executors. Every file a statement writes has {@code writeId} in its
 * name, so that the files of a failed statement can be found (and deleted) under {@link
 * #dataLocation} even when the task that wrote them never reported them.
 *
 * @param name the table's name, for messages
 * @param location the table's location
 * @param schema the table's schema as Iceberg JSON
 * @param spec the table's partition spec as Iceberg JSON
 * @param properties the table's properties (target file size, data location, layout)
 * @param writeId the statement's id, in every file name it writes
 */
public record WriteTarget(
    String name,
    String location,
    String schema,
    String spec,
    Map<String, String> properties,
    String writeId) {
  public WriteTarget {
    properties = Map.copyOf(properties);
  }

  /** {@code table}'s target for the statement {@code writeId}. */
  static WriteTarget of(Table table, String name, String writeId) {
    return new WriteTarget(
        name,
        table.location(),
        SchemaParser.toJson(table.schema()),
        PartitionSpecParser.toJson(table.spec()),
        table.properties(),
        writeId);
  }

  Schema icebergSchema() {
    return SchemaParser.fromJson(schema);
  }

  PartitionSpec partitionSpec(Schema s) {
    return PartitionSpecParser.fromJson(s, spec);
  }

  LocationProvider locations() {
    return LocationProviders.locationsFor(location, properties);
  }

  /** The folder every data file of the table is written under. */
  String dataLocation() {
    String data = properties.get(TableProperties.WRITE_DATA_LOCATION);
    return data != null ? data : location.replaceAll("/+$", "") + "/data";
  }
}
