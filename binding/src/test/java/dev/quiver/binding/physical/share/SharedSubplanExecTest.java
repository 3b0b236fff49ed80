package dev.quiver.binding.physical.share;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.MemoryPool;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.binding.physical.scan.MemoryScanExec;
import dev.quiver.binding.physical.sort.TestData;
import dev.quiver.binding.settings.BindingSettings;
import dev.quiver.binding.settings.SessionConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** One input partition, several readers: each gets every row once, in memory or spilled. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SharedSubplanExecTest {
  private static final Schema SCHEMA =
      new Schema(List.of(TestData.field("x", TestData.BIGINT), TestData.field("s", TestData.UTF8)));
  private static final int ROWS = 1000;

  @TempDir Path spill;
  private BufferAllocator allocator;
  private ExecutorService executor;
  private VectorSchemaRoot table;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    executor = Executors.newCachedThreadPool();
    List<Object[]> rows = new ArrayList<>();
    for (long i = 0; i < ROWS; i++) {
      rows.add(new Object[] {i, "row " + i});
    }
    table = TestData.batch(SCHEMA, allocator, rows);
  }

  @AfterEach
  void tearDown() {
    table.close();
    executor.shutdownNow();
    allocator.close(); // fails on a leaked buffer
  }

  private TaskContext context(long pool) {
    SessionConfig config =
        new SessionConfig().set(BindingSettings.SPILL_DIRECTORY.key(), spill.toString());
    return new TaskContext("q", allocator, new MemoryPool(pool), config, executor);
  }

  private SharedSubplanExec shared(int partitions, int readers) {
    return new SharedSubplanExec(
        new MemoryScanExec(SCHEMA, List.of(table), null, OptionalLong.empty(), partitions, 64),
        readers,
        1);
  }

  /** Sum of x and row count read from {@code stream}, closing it. */
  private static long[] drain(BatchStream stream) {
    long sum = 0;
    long rows = 0;
    try (stream) {
      for (VectorSchemaRoot next = stream.next(); next != null; next = stream.next()) {
        try (VectorSchemaRoot b = next) {
          BigIntVector x = (BigIntVector) b.getVector(0);
          for (int i = 0; i < b.getRowCount(); i++) {
            sum += x.get(i);
          }
          rows += b.getRowCount();
        }
      }
    }
    return new long[] {sum, rows};
  }

  private static final long[] ALL = {(long) ROWS * (ROWS - 1) / 2, ROWS};

  @Test
  void everyReaderGetsEveryRowWhileTheInputRunsOnce() {
    SharedSubplanExec plan = shared(2, 3);
    try (TaskContext context = context(Long.MAX_VALUE)) {
      long[] total = {0, 0};
      for (int reader = 0; reader < 3; reader++) {
        for (int p = 0; p < 2; p++) {
          long[] got = drain(plan.execute(p, context));
          total[0] += got[0];
          total[1] += got[1];
        }
      }
      assertThat(total).containsExactly(3 * ALL[0], 3 * ALL[1]);
      assertThat(plan.metrics().inputExecutions()).isEqualTo(2);
      assertThat(plan.input().metrics().outputRows()).isEqualTo(ROWS);
      assertThat(context.memoryPool().reserved()).isZero();
    }
  }

  @Test
  void interleavedReadersEachSeeTheRowsInOrder() {
    SharedSubplanExec plan = shared(1, 2);
    try (TaskContext context = context(Long.MAX_VALUE);
        BatchStream a = plan.execute(0, context);
        BatchStream b = plan.execute(0, context)) {
      long expectA = 0;
      long expectB = 0;
      for (int step = 0; step < 40; step++) {
        BatchStream s = step % 3 == 0 ? b : a;
        VectorSchemaRoot batch = s.next();
        if (batch == null) {
          continue;
        }
        try (batch) {
          BigIntVector x = (BigIntVector) batch.getVector(0);
          for (int i = 0; i < batch.getRowCount(); i++) {
            if (s == a) {
              assertThat(x.get(i)).isEqualTo(expectA++);
            } else {
              assertThat(x.get(i)).isEqualTo(expectB++);
            }
          }
        }
      }
      assertThat(drain(a)[1] + expectA).isEqualTo(ROWS);
      assertThat(drain(b)[1] + expectB).isEqualTo(ROWS);
    }
  }

  @Test
  void rowsThePoolRefusesAreSpilledAndReadBack() throws Exception {
    SharedSubplanExec plan = shared(1, 2);
    try (TaskContext context = context(0)) {
      assertThat(drain(plan.execute(0, context))).containsExactly(ALL);
      assertThat(plan.metrics().spillCount()).isPositive();
      try (var files = Files.list(spill)) {
        assertThat(files.count()).isPositive();
      }
      assertThat(drain(plan.execute(0, context))).containsExactly(ALL);
    }
    try (var files = Files.list(spill)) {
      assertThat(files.toList()).isEmpty();
    }
  }

  @Test
  void readersThatStopEarlyOrNeverComeFreeEverythingAtTheEnd() {
    SharedSubplanExec plan = shared(1, 2);
    try (TaskContext context = context(Long.MAX_VALUE)) {
      try (BatchStream first = plan.execute(0, context)) {
        first.next().close();
      }
      // The second reader never comes (a join skipped its probe side): the kept rows wait for it
      // until the execution ends.
      assertThat(context.memoryPool().reserved()).isPositive();
    }
    // tearDown checks that the allocator got everything back.
  }

  @Test
  void aReaderMoreThanPlannedIsRefused() {
    SharedSubplanExec plan = shared(1, 2);
    try (TaskContext context = context(Long.MAX_VALUE)) {
      drain(plan.execute(0, context));
      drain(plan.execute(0, context));
      assertThatThrownBy(() -> plan.execute(0, context))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("more than its 2 planned readers");
    }
  }
}
