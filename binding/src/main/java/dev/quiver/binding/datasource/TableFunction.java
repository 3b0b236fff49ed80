package dev.quiver.binding.datasource;

/**
 * A function that stands where a table stands, {@code FROM name('arg', option => value)}, and opens
 * the table it names when the statement is planned (as {@code read_parquet} does). Sessions find
 * the ones on the class path through {@link java.util.ServiceLoader} (list them in {@code
 * META-INF/services/dev.quiver.binding.datasource.TableFunction}); {@code
 * SessionContext.registerTableFunction} and {@code Extension.tableFunctions} add others.
 */
public interface TableFunction {
  /** The name SQL calls it by (matched without regard to case). */
  String name();

  /** Opens the table the call names; errors are typed and name the argument at fault. */
  TableProvider open(TableFunctionCall call);
}
