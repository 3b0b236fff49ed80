package dev.quiver.binding.physical.expr;

/** The test UDF {@code add2(BIGINT, BIGINT)}, shared with translator tests. */
public final class DateAndMathTestUdf extends ForwardingUdf {
  public DateAndMathTestUdf() {
    super(new DateAndMathTest.AddUdf());
  }
}
