package dev.quiver.executor.task;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.errors.DataSourceException;
import dev.quiver.binding.errors.InternalException;
import dev.quiver.distributed.client.RemoteErrors;
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
  void memoryLimitsAreResourcesExhaustedAndOthersInternalErrors() {
    assertThat(TaskFailures.describe(new OutOfMemoryException("no room"), "t", Map.of()).getKind())
        .isEqualTo("ResourcesExhaustedException");
    ErrorInfo other = TaskFailures.describe(new NullPointerException("oops"), "task t", Map.of());
    assertThat(other.getKind()).isEqualTo("InternalException");
    assertThat(other.getMessage())
        .startsWith("Internal error in task t: NullPointerException: oops at TaskFailuresTest.")
        .doesNotContain("java.lang");
    ErrorInfo named =
        TaskFailures.describe(new UnsupportedOperationException(), "task job-1/2/0#0", Map.of());
    assertThat(named.getMessage())
        .startsWith("Internal error in task job-1/2/0#0: UnsupportedOperationException at ")
        .doesNotContain("task task");
    // The client rethrows it as the same type, with the job's id.
    assertThat(RemoteErrors.toException("job-1", named))
        .isInstanceOf(InternalException.class)
        .hasMessage(named.getMessage())
        .extracting(e -> ((InternalException) e).queryId())
        .isEqualTo("job-1");
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
