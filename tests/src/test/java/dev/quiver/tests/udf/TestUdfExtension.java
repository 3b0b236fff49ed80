package dev.quiver.tests.udf;

import dev.quiver.binding.Extension;
import dev.quiver.binding.udf.ScalarUdf;
import java.util.List;

/**
 * Provides {@link TimesTwo} and {@link BrokenCheck} to whoever loads extensions from this classpath
 * entry.
 */
public final class TestUdfExtension implements Extension {
  @Override
  public List<ScalarUdf> udfs() {
    return List.of(new TimesTwo(), new BrokenCheck());
  }
}
