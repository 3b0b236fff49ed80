package dev.quiver.binding.physical.scan;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class FileSplitsTest {
  @Test
  void balanceDealsLargestFirstOntoTheLightestPartition() {
    List<FileSplits.SizedFile> files =
        List.of(
            new FileSplits.SizedFile("a", 100),
            new FileSplits.SizedFile("b", 60),
            new FileSplits.SizedFile("c", 50),
            new FileSplits.SizedFile("d", 10));
    assertThat(FileSplits.balance(files, 2)).containsExactly(List.of("a", "d"), List.of("b", "c"));
    assertThat(FileSplits.balance(files, 10)).hasSize(4);
    assertThat(FileSplits.balance(List.of(), 3)).containsExactly(List.of());
  }

  @Test
  void contiguousCutsTheOrderedUnitsIntoEvenRuns() {
    List<Integer> rowGroups = List.of(10, 10, 10, 10, 10, 10, 10, 10);
    assertThat(FileSplits.contiguous(rowGroups, Integer::longValue, 4))
        .containsExactly(List.of(10, 10), List.of(10, 10), List.of(10, 10), List.of(10, 10));
    List<Integer> uneven = List.of(1, 2, 3, 4, 5, 6, 7, 8, 9);
    List<List<Integer>> runs = FileSplits.contiguous(uneven, Integer::longValue, 3);
    // Order is kept and every unit lands once; runs hold 45/3 = 15 bytes give or take a unit.
    assertThat(runs.stream().flatMap(List::stream).toList()).isEqualTo(uneven);
    assertThat(runs).containsExactly(List.of(1, 2, 3, 4, 5), List.of(6, 7), List.of(8, 9));
  }

  @Test
  void contiguousDropsEmptyRunsButKeepsOne() {
    assertThat(FileSplits.contiguous(List.of(5, 5), Integer::longValue, 8))
        .containsExactly(List.of(5), List.of(5));
    assertThat(FileSplits.contiguous(List.<Integer>of(), Integer::longValue, 3))
        .containsExactly(List.of());
  }
}
