package dev.quiver.binding.datasource;

import dev.quiver.binding.errors.DataSourceException;
import dev.quiver.binding.physical.scan.PartitionValues;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * How a folder of Parquet files is read.
 *
 * @param hivePartitioning whether {@code name=value} folders between the table's root and its files
 *     become columns (default true)
 * @param partitionTypes types of partition columns, overriding inference (BIGINT when every value
 *     is an integer, else DATE when every value is a date, else VARCHAR); allowed: BIGINT, INT,
 *     DOUBLE, BOOLEAN, DATE, VARCHAR
 */
public record ParquetOptions(boolean hivePartitioning, Map<String, ArrowType> partitionTypes) {
  /** Hive partition folders read, their types inferred. */
  public static final ParquetOptions DEFAULT = new ParquetOptions(true, Map.of());

  /** Validates and copies the options. */
  public ParquetOptions {
    partitionTypes = Map.copyOf(new LinkedHashMap<>(partitionTypes));
    for (Map.Entry<String, ArrowType> e : partitionTypes.entrySet()) {
      if (!PartitionValues.supported(e.getValue())) {
        throw new DataSourceException(
            "Partition column "
                + e.getKey()
                + " cannot have type "
                + e.getValue()
                + "; use BIGINT, INT, DOUBLE, BOOLEAN, DATE or VARCHAR");
      }
    }
  }

  /** These options with partition column {@code name} typed {@code type}. */
  public ParquetOptions withPartitionType(String name, ArrowType type) {
    Map<String, ArrowType> types = new LinkedHashMap<>(partitionTypes);
    types.put(name, type);
    return new ParquetOptions(hivePartitioning, types);
  }

  /** These options with Hive partition folders read or ignored. */
  public ParquetOptions withHivePartitioning(boolean read) {
    return new ParquetOptions(read, partitionTypes);
  }
}
