package dev.quiver.scheduler.admission;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import dev.quiver.binding.errors.QuiverException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The resource groups of a scheduler ({@code --resource-groups FILE}, JSON): per group how many of
 * its jobs run at once, how many may wait, its weight in the fair share of task slots and its share
 * of the cluster's memory; and the selectors that put a user's jobs in a group.
 *
 * <pre>{@code
 * {"groups": [
 *    {"name": "etl",   "maxRunning": 2, "maxQueued": 20,  "weight": 1, "memoryShare": 0.6},
 *    {"name": "adhoc", "maxRunning": 8, "maxQueued": 100, "weight": 3, "memoryShare": 0.4}],
 *  "selectors": [{"user": "etl-bot", "group": "etl"}],
 *  "default": "adhoc"}
 * }</pre>
 *
 * A job runs in the group its session names ({@code SET quiver.resource_group}), else in the group
 * of the first selector naming its user ({@code "*"}: any user), else in the default group (the
 * first group when none is named).
 */
public final class ResourceGroups {

  /** A group's name and limits; a limit left out of the file is unlimited. */
  public record Group(
      String name, int maxRunning, int maxQueued, double weight, double memoryShare) {
    /** Validates the limits. */
    public Group {
      if (name == null || !name.matches("[A-Za-z0-9._-]{1,64}")) {
        throw new IllegalArgumentException(
            "a resource group needs a name of letters, digits, '.', '_' or '-', got " + name);
      }
      if (maxRunning < 1 || maxQueued < 0) {
        throw new IllegalArgumentException(
            "resource group '"
                + name
                + "': maxRunning must be at least 1 and maxQueued at least 0, got "
                + maxRunning
                + " and "
                + maxQueued);
      }
      if (!(weight > 0) || Double.isInfinite(weight)) {
        throw new IllegalArgumentException(
            "resource group '" + name + "': weight must be positive, got " + weight);
      }
      if (!(memoryShare > 0 && memoryShare <= 1)) {
        throw new IllegalArgumentException(
            "resource group '" + name + "': memoryShare must be in (0, 1], got " + memoryShare);
      }
    }
  }

  /** Puts the jobs of {@code user} ({@code "*"}: any user) in {@code group}. */
  public record Selector(String user, String group) {}

  /** The name of the one group of a scheduler without {@code --resource-groups}. */
  public static final String DEFAULT = "default";

  private static final ResourceGroups SINGLE =
      new ResourceGroups(
          List.of(new Group(DEFAULT, Integer.MAX_VALUE, Integer.MAX_VALUE, 1, 1)), List.of(), null);

  private final Map<String, Group> groups = new LinkedHashMap<>();
  private final List<Selector> selectors;
  private final Group defaultGroup;

  /**
   * Groups, selectors and the default group's name (null: the first group).
   *
   * @throws IllegalArgumentException on a duplicate or unknown group name, or a bad limit
   */
  public ResourceGroups(List<Group> groups, List<Selector> selectors, String defaultGroup) {
    if (groups.isEmpty()) {
      throw new IllegalArgumentException("resource groups: no group is defined");
    }
    double memory = 0;
    for (Group g : groups) {
      if (this.groups.putIfAbsent(g.name(), g) != null) {
        throw new IllegalArgumentException(
            "resource groups: group '" + g.name() + "' is defined twice");
      }
      memory += g.memoryShare();
    }
    if (groups.size() > 1 && memory > 1 + 1e-9) {
      throw new IllegalArgumentException(
          "resource groups: the memory shares add up to " + memory + ", more than 1");
    }
    for (Selector s : selectors) {
      if (s.user() == null || s.user().isEmpty()) {
        throw new IllegalArgumentException(
            "resource groups: a selector needs a user (\"*\" for any)");
      }
      require(s.group(), "selector of user '" + s.user() + "'");
    }
    this.selectors = List.copyOf(selectors);
    this.defaultGroup = defaultGroup == null ? groups.get(0) : require(defaultGroup, "\"default\"");
  }

  /** One unlimited group, {@value #DEFAULT}: every job is admitted at once. */
  public static ResourceGroups single() {
    return SINGLE;
  }

  /** The file's JSON as it is written; absent limits are unlimited, weight and share 1. */
  private record FileGroup(
      String name, Integer maxRunning, Integer maxQueued, Double weight, Double memoryShare) {}

  private record FileConfig(List<FileGroup> groups, List<Selector> selectors, String defaultGroup) {
    @com.fasterxml.jackson.annotation.JsonCreator
    FileConfig(
        @com.fasterxml.jackson.annotation.JsonProperty("groups") List<FileGroup> groups,
        @com.fasterxml.jackson.annotation.JsonProperty("selectors") List<Selector> selectors,
        @com.fasterxml.jackson.annotation.JsonProperty("default") String defaultGroup) {
      this.groups = groups == null ? List.of() : groups;
      this.selectors = selectors == null ? List.of() : selectors;
      this.defaultGroup = defaultGroup;
    }
  }

  /**
   * Reads the groups from a JSON file (see the class comment).
   *
   * @throws QuiverException naming the file and what is wrong in it
   */
  public static ResourceGroups load(Path file) {
    ObjectMapper json =
        new ObjectMapper().enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);
    try {
      FileConfig c = json.readValue(file.toFile(), FileConfig.class);
      List<Group> groups = new ArrayList<>();
      for (FileGroup g : c.groups()) {
        groups.add(
            new Group(
                g.name(),
                g.maxRunning() == null ? Integer.MAX_VALUE : g.maxRunning(),
                g.maxQueued() == null ? Integer.MAX_VALUE : g.maxQueued(),
                g.weight() == null ? 1 : g.weight(),
                g.memoryShare() == null ? 1.0 / c.groups().size() : g.memoryShare()));
      }
      return new ResourceGroups(groups, c.selectors(), c.defaultGroup());
    } catch (UnrecognizedPropertyException e) {
      throw new QuiverException(
          "The resource groups file "
              + file
              + " has an unknown field '"
              + e.getPropertyName()
              + "' (known: "
              + e.getKnownPropertyIds()
              + ")",
          e);
    } catch (JsonProcessingException e) {
      throw new QuiverException(
          "The resource groups file "
              + file
              + " is not valid JSON of groups: "
              + e.getOriginalMessage()
              + (e.getLocation() == null ? "" : " (line " + e.getLocation().getLineNr() + ")"),
          e);
    } catch (IOException e) {
      throw new QuiverException(
          "Cannot read the resource groups file " + file + ": " + e.getMessage(), e);
    } catch (IllegalArgumentException e) {
      throw new QuiverException(
          "The resource groups file " + file + " is not valid: " + e.getMessage(), e);
    }
  }

  /** The groups, in the file's order. */
  public List<Group> groups() {
    return List.copyOf(groups.values());
  }

  /** The group named {@code name}, or null. */
  public Group group(String name) {
    return groups.get(name);
  }

  /**
   * The group a job of {@code user} ("" when unknown) runs in: {@code requested} when not empty,
   * else the first selector's naming the user, else the default group.
   *
   * @throws IllegalArgumentException when {@code requested} names no group, listing the groups
   */
  public Group select(String user, String requested) {
    if (requested != null && !requested.isEmpty()) {
      return require(requested, "quiver.resource_group");
    }
    for (Selector s : selectors) {
      if (s.user().equals("*") || s.user().equals(user)) {
        return groups.get(s.group());
      }
    }
    return defaultGroup;
  }

  private Group require(String name, String where) {
    Group g = groups.get(name);
    if (g == null) {
      throw new IllegalArgumentException(
          where
              + " names resource group '"
              + name
              + "', which does not exist; the groups are "
              + groups.keySet());
    }
    return g;
  }
}
