package dev.quiver.scheduler.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.errors.QuiverException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ResourceGroupsTest {
  @TempDir Path dir;

  private Path file(String json) throws Exception {
    Path f = dir.resolve("groups.json");
    Files.writeString(f, json);
    return f;
  }

  @Test
  void readsGroupsSelectorsAndTheDefault() throws Exception {
    ResourceGroups g =
        ResourceGroups.load(
            file(
                """
                {"groups": [
                   {"name": "etl", "maxRunning": 2, "maxQueued": 20, "weight": 1,
                    "memoryShare": 0.6},
                   {"name": "adhoc", "maxRunning": 8, "weight": 3, "memoryShare": 0.4}],
                 "selectors": [{"user": "etl-bot", "group": "etl"}],
                 "default": "adhoc"}
                """));
    assertThat(g.groups())
        .containsExactly(
            new ResourceGroups.Group("etl", 2, 20, 1, 0.6),
            new ResourceGroups.Group("adhoc", 8, Integer.MAX_VALUE, 3, 0.4));
    assertThat(g.select("etl-bot", "").name()).isEqualTo("etl");
    assertThat(g.select("alice", "").name()).isEqualTo("adhoc");
    assertThat(g.select("", null).name()).isEqualTo("adhoc");
    // The session's choice wins over the selectors.
    assertThat(g.select("etl-bot", "adhoc").name()).isEqualTo("adhoc");
    assertThatThrownBy(() -> g.select("alice", "batch"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'batch'")
        .hasMessageContaining("[etl, adhoc]");
  }

  @Test
  void aWildcardSelectorTakesEveryUserAndWithoutDefaultTheFirstGroupIsIt() throws Exception {
    ResourceGroups g =
        ResourceGroups.load(
            file(
                """
                {"groups": [{"name": "a"}, {"name": "b"}],
                 "selectors": [{"user": "bob", "group": "a"}, {"user": "*", "group": "b"}]}
                """));
    assertThat(g.select("bob", "").name()).isEqualTo("a");
    assertThat(g.select("carol", "").name()).isEqualTo("b");
    assertThat(g.group("a").memoryShare()).isEqualTo(0.5);
    assertThat(ResourceGroups.load(file("{\"groups\": [{\"name\": \"x\"}]}")).select("", "").name())
        .isEqualTo("x");
  }

  @Test
  void mistakesAreNamed() throws Exception {
    assertThatThrownBy(() -> ResourceGroups.load(file("{\"groups\": [{\"nam\": \"x\"}]}")))
        .isInstanceOf(QuiverException.class)
        .hasMessageContaining("unknown field 'nam'");
    assertThatThrownBy(
            () ->
                ResourceGroups.load(file("{\"groups\": [{\"name\": \"x\"}], \"default\": \"y\"}")))
        .hasMessageContaining("names resource group 'y', which does not exist");
    assertThatThrownBy(
            () -> ResourceGroups.load(file("{\"groups\": [{\"name\": \"x\", \"maxRunning\": 0}]}")))
        .hasMessageContaining("maxRunning must be at least 1");
    assertThatThrownBy(
            () -> ResourceGroups.load(file("{\"groups\": [{\"name\": \"x\", \"weight\": -1}]}")))
        .hasMessageContaining("weight must be positive");
    assertThatThrownBy(
            () ->
                ResourceGroups.load(
                    file(
                        "{\"groups\": [{\"name\": \"x\", \"memoryShare\": 0.7},"
                            + " {\"name\": \"y\", \"memoryShare\": 0.7}]}")))
        .hasMessageContaining("memory shares add up to 1.4");
    assertThatThrownBy(() -> ResourceGroups.load(file("{\"groups\": [")))
        .hasMessageContaining("is not valid JSON");
    assertThatThrownBy(() -> ResourceGroups.load(file("{}")))
        .hasMessageContaining("no group is defined");
    assertThatThrownBy(() -> ResourceGroups.load(dir.resolve("missing.json")))
        .hasMessageContaining("Cannot read the resource groups file");
  }

  @Test
  void withoutAFileOneUnlimitedGroupTakesEveryJob() {
    ResourceGroups.Group g = ResourceGroups.single().select("anyone", "");
    assertThat(g.name()).isEqualTo(ResourceGroups.DEFAULT);
    assertThat(g.maxRunning()).isEqualTo(Integer.MAX_VALUE);
  }
}
