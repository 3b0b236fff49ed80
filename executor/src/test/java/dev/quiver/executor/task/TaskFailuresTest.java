package dev.quiver.executor.task;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.errors.DataSourceException;
import dev.quiver.distributed.proto.ErrorInfo;
import java.util.Map;
import org.apache.arrow.memory.OutOfMemoryException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class TaskFailuresTest {

  @Test
  void kindIsTheBindingExceptionBehindTheFailure() {
    ErrorInfo e =
        TaskFailures.describe(
            new IllegalStateException("wrapped", new DataSourceException("file x.csv is gone")),
            "task j/1/0#0",
            Map.of());
    assertThat(e.getKind()).isEqualTo("DataSourceException");
    assertThat(e.getMessage()).isEqualTo("file x.csv is gone");
  }

  @Test
  void memoryLimitsAreResourcesExhaustedAndOthersQuiverExceptions() {
    assertThat(TaskFailures.describe(new OutOfMemoryException("no room"), "t", Map.of()).getKind())
        .isEqualTo("ResourcesExhaustedException");
    ErrorInfo other = TaskFailures.describe(new NullPointerException("oops"), "task t", Map.of());
    assertThat(other.getKind()).isEqualTo("QuiverException");
    assertThat(other.getMessage()).contains("task t failed").contains("oops");
    ErrorInfo named =
        TaskFailures.describe(new NullPointerException("oops"), "task job-1/2/0#0", Map.of());
    assertThat(named.getMessage())
        .startsWith("task job-1/2/0#0 failed: ")
        .doesNotContain("task task");
  }

  @Test
  void secretSettingValuesAreMasked() {
    ErrorInfo e =
        TaskFailures.describe(
            new DataSourceException("cannot open s3://bucket?key=hunter2-secret&x=1"),
            "t",
            Map.of("quiver.s3.secret_access_key", "hunter2-secret", "batch_size", "1"));
    assertThat(e.getMessage()).doesNotContain("hunter2").contains("key=***&x=1");
  }
}
