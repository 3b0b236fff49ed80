package dev.quiver.iceberg;

import dev.quiver.binding.datasource.TableFunction;
import dev.quiver.binding.datasource.TableFunctionCall;
import dev.quiver.binding.datasource.TableProvider;
import dev.quiver.binding.errors.DataSourceException;
import dev.quiver.binding.errors.QueryTypeException;
import dev.quiver.iceberg.io.QuiverFileIO;
import dev.quiver.iceberg.table.IcebergLocations;
import dev.quiver.iceberg.table.IcebergTable;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.Set;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.NotFoundException;

/**
 * {@code iceberg_scan('LOCATION' [, snapshot_id => N] [, as_of => TIMESTAMP])}: the Iceberg table
 * at a folder or metadata file, local or in S3 (with the session's {@code quiver.s3.*} settings),
 * at its current snapshot, a given one, or the one current at a time (UTC). Found by {@link
 * java.util.ServiceLoader}, so every session with this module on its class path has it.
 */
public final class IcebergScanFunction implements TableFunction {
  /** The function's name. */
  public static final String NAME = "iceberg_scan";

  /** Used by {@link java.util.ServiceLoader}. */
  public IcebergScanFunction() {}

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public TableProvider open(TableFunctionCall call) {
    call.check(1, Set.of("snapshot_id", "as_of"));
    String location = call.string(0, "the table's location");
    Object snapshot = call.options().get("snapshot_id");
    Object asOf = call.options().get("as_of");
    if (snapshot != null && asOf != null) {
      throw new QueryTypeException(NAME + " takes snapshot_id or as_of, not both");
    }
    String metadata = IcebergLocations.metadataFile(location, call.config());
    StaticTableOperations ops =
        new StaticTableOperations(metadata, new QuiverFileIO(call.config()));
    try {
      ops.current(); // read now: a missing metadata file is the caller's error, said as such
    } catch (NotFoundException e) {
      throw new DataSourceException(
          "No Iceberg table at "
              + location
              + ": its metadata file "
              + metadata
              + " does not exist");
    }
    Table table = new BaseTable(ops, location);
    if (snapshot != null) {
      if (!(snapshot instanceof Long id)) {
        throw new QueryTypeException(
            NAME + ": snapshot_id is a snapshot's number, got " + snapshot);
      }
      return IcebergTable.atSnapshot(table, location, id);
    }
    if (asOf != null) {
      return IcebergTable.asOf(table, location, epochMillis(asOf));
    }
    return IcebergTable.current(table, location);
  }

  /** A timestamp (UTC) given as a TIMESTAMP literal or text. */
  static long epochMillis(Object value) {
    LocalDateTime t;
    if (value instanceof LocalDateTime ldt) {
      t = ldt;
    } else if (value instanceof java.time.LocalDate d) {
      t = d.atStartOfDay();
    } else if (value instanceof String s) {
      try {
        t = LocalDateTime.parse(s.trim().replace(' ', 'T'));
      } catch (DateTimeParseException e) {
        throw new QueryTypeException(
            NAME + ": as_of takes a timestamp such as TIMESTAMP '2026-01-31 12:00:00', got " + s);
      }
    } else {
      throw new QueryTypeException(NAME + ": as_of takes a timestamp, got " + value);
    }
    return t.toInstant(ZoneOffset.UTC).toEpochMilli();
  }
}
