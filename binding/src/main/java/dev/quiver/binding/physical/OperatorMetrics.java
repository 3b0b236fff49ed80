package dev.quiver.binding.physical;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/** Counters an operator instance accumulates while it runs; shown by EXPLAIN ANALYZE. */
public final class OperatorMetrics {
  private final LongAdder outputRows = new LongAdder();
  private final LongAdder outputBatches = new LongAdder();
  private final LongAdder elapsedNanos = new LongAdder();
  private final LongAdder spillCount = new LongAdder();
  private final LongAdder spilledBytes = new LongAdder();
  private final LongAdder fetchedBytes = new LongAdder();
  private final LongAdder ruledOutRows = new LongAdder();
  private final LongAdder lateFilteredRows = new LongAdder();
  private final LongAdder lateSkippedPages = new LongAdder();
  private final LongAdder inputExecutions = new LongAdder();

  /** Records one produced batch. */
  public void recordBatch(long rows) {
    outputRows.add(rows);
    outputBatches.increment();
  }

  /** Adds time spent producing output (including children). */
  public void addElapsed(long nanos) {
    elapsedNanos.add(nanos);
  }

  /** Records one spill of {@code bytes} to disk. */
  public void recordSpill(long bytes) {
    spillCount.increment();
    spilledBytes.add(bytes);
  }

  /** Records {@code bytes} read from files or object stores (scans). */
  public void recordFetched(long bytes) {
    fetchedBytes.add(bytes);
  }

  /** Records input rows dropped before processing because they cannot contribute (joins). */
  public void recordRuledOut(long rows) {
    ruledOutRows.add(rows);
  }

  /**
   * Records a scan's late materialization: {@code rows} rows its filter dropped before the other
   * columns were decoded for them, {@code pages} pages of those columns passed over undecoded.
   */
  public void recordLateMaterialization(long rows, long pages) {
    lateFilteredRows.add(rows);
    lateSkippedPages.add(pages);
  }

  /**
   * Records that a shared subplan ran one partition of its input (once per execution, however many
   * parents read it).
   */
  public void recordInputExecution() {
    inputExecutions.increment();
  }

  /** Partitions of its input a shared subplan ran so far. */
  public long inputExecutions() {
    return inputExecutions.sum();
  }

  /** Rows a scan's filter dropped before decoding the columns it does not read. */
  public long lateFilteredRows() {
    return lateFilteredRows.sum();
  }

  /** Pages a scan passed over undecoded because its filter kept none of their rows. */
  public long lateSkippedPages() {
    return lateSkippedPages.sum();
  }

  /** Input rows dropped early so far (a hash join's probe rows its key bitmap ruled out). */
  public long ruledOutRows() {
    return ruledOutRows.sum();
  }

  /** Bytes read from files or object stores so far. */
  public long fetchedBytes() {
    return fetchedBytes.sum();
  }

  /** Rows produced so far. */
  public long outputRows() {
    return outputRows.sum();
  }

  /** Batches produced so far. */
  public long outputBatches() {
    return outputBatches.sum();
  }

  /** Nanoseconds spent in next() of this operator's streams, children included. */
  public long elapsedNanos() {
    return elapsedNanos.sum();
  }

  /** Number of spills to disk. */
  public long spillCount() {
    return spillCount.sum();
  }

  /** Bytes written to spill files. */
  public long spilledBytes() {
    return spilledBytes.sum();
  }

  /** All counters by name, in display order. */
  public Map<String, Long> asMap() {
    Map<String, Long> m = new LinkedHashMap<>();
    m.put("output_rows", outputRows());
    m.put("output_batches", outputBatches());
    m.put("elapsed_ms", elapsedNanos() / 1_000_000);
    if (fetchedBytes() > 0) {
      m.put("fetched_bytes", fetchedBytes());
    }
    if (ruledOutRows() > 0) {
      m.put("ruled_out_rows", ruledOutRows());
    }
    if (lateFilteredRows() > 0) {
      m.put("late_filtered_rows", lateFilteredRows());
      m.put("late_skipped_pages", lateSkippedPages());
    }
    if (inputExecutions() > 0) {
      m.put("input_executions", inputExecutions());
    }
    if (spillCount() > 0) {
      m.put("spill_count", spillCount());
      m.put("spilled_bytes", spilledBytes());
    }
    return m;
  }
}
