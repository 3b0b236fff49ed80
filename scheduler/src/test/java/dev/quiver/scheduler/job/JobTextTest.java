package dev.quiver.scheduler.job;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.distributed.proto.JobSpec;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Secrets never reach a job's text as logs, views and the history show it. */
class JobTextTest {

  @Test
  void theValueOfASecretSettingIsHidden() {
    JobSpec spec =
        JobSpec.newBuilder()
            .setName("SELECT * FROM t WHERE note = 'wJalrXUtnFEMI/K7MDENG'")
            .putSettings("quiver.s3.secret_access_key", "wJalrXUtnFEMI/K7MDENG")
            .putSettings("quiver.execution.target_partitions", "4")
            .build();
    assertThat(JobText.of(spec)).isEqualTo("SELECT * FROM t WHERE note = '***'");
  }

  /**
   * The scheduler carries no engine, so no registry of the engine's settings: the client names the
   * secret ones, whatever their keys look like.
   */
  @Test
  void theValueOfASettingTheClientMarksSecretIsHidden() {
    JobSpec spec =
        JobSpec.newBuilder()
            .setName("SELECT * FROM t WHERE pin = '8231-5540'")
            .putSettings("quiver.catalog.vault_pin", "8231-5540")
            .addSecretSettings("quiver.catalog.vault_pin")
            .build();
    assertThat(JobText.of(spec)).isEqualTo("SELECT * FROM t WHERE pin = '***'");
    assertThat(JobText.of(spec.toBuilder().clearSecretSettings().build())).contains("8231-5540");
  }

  @Test
  void credentialsWrittenInTheTextAreHidden() {
    assertThat(
            JobText.redact(
                "COPY t TO 's3://b/x/' OPTIONS ('secret_access_key' 'abc''d', 'format' 'parquet',"
                    + " aws.session_token = 'tok123')",
                Map.of(),
                List.of()))
        .isEqualTo(
            "COPY t TO 's3://b/x/' OPTIONS ('secret_access_key' '***', 'format' 'parquet',"
                + " aws.session_token = '***')");
    assertThat(
            JobText.redact(
                "SELECT * FROM read_csv('https://ann:pw@example.com/a.csv')", Map.of(), List.of()))
        .isEqualTo("SELECT * FROM read_csv('https://***@example.com/a.csv')");
  }

  @Test
  void ordinaryTextIsLeftAlone() {
    String sql = "SELECT l_orderkey, 'abc' FROM lineitem WHERE l_partkey = '12' -- key";
    assertThat(JobText.redact(sql, Map.of("quiver.execution.batch_size", "8192"), List.of()))
        .isEqualTo(sql);
  }
}
