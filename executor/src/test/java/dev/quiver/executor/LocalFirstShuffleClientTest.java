package dev.quiver.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.MemoryPool;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.distributed.proto.ShufflePartitionId;
import dev.quiver.distributed.shuffle.ShuffleClient;
import dev.quiver.distributed.shuffle.ShuffleFetchException;
import dev.quiver.distributed.shuffle.ShuffleLocation;
import dev.quiver.distributed.wire.ShuffleTickets;
import dev.quiver.executor.shuffle.LocalFirstShuffleClient;
import dev.quiver.executor.shuffle.ShuffleStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(60)
class LocalFirstShuffleClientTest {
  private static final int ROWS = 500;

  @TempDir Path workDir;

  private final BufferAllocator allocator = new RootAllocator();
  private final List<ShuffleLocation> remoteCalls = new ArrayList<>();
  private final ShuffleClient remote =
      (location, schema, context) -> {
        remoteCalls.add(location);
        throw new ShuffleFetchException(location, "remote", null);
      };

  @AfterEach
  void checkNoLeak() {
    assertThat(allocator.getAllocatedMemory()).isZero();
    allocator.close();
  }

  private static ShuffleLocation at(ShufflePartitionId id, String executor) {
    return new ShuffleLocation(
        id.getJobId(),
        id.getStageId(),
        id.getTaskId(),
        id.getPartition(),
        executor,
        "127.0.0.1",
        1);
  }

  private void write(ShuffleStore store, ShufflePartitionId id, int batches) {
    for (int b = 0; b < batches; b++) {
      try (VectorSchemaRoot batch = TestBatches.batch(allocator, b, ROWS)) {
        store.append(id, batch);
      }
    }
    store.complete(id, TestBatches.SCHEMA);
  }

  private List<String> readAll(ShuffleClient client, ShuffleLocation location, Schema schema) {
    List<String> rows = new ArrayList<>();
    try (BufferAllocator task = allocator.newChildAllocator("task", 0, Long.MAX_VALUE)) {
      TaskContext context =
          new TaskContext("q", task, new MemoryPool(Long.MAX_VALUE), new SessionConfig(), null);
      try (BatchStream s = client.open(location, schema, context)) {
        VectorSchemaRoot b;
        while ((b = s.next()) != null) {
          try (VectorSchemaRoot batch = b) {
            TestBatches.dump(batch, rows);
          }
        }
      }
    }
    return rows;
  }

  @Test
  void ownPartitionsAreReadFromTheStoreInMemoryAndSpilled() throws Exception {
    // A budget below one batch spills; a large one keeps everything in memory.
    for (long budget : new long[] {64L << 20, 1024}) {
      try (ShuffleStore store =
          new ShuffleStore(allocator, workDir.resolve("b" + budget), budget)) {
        ShufflePartitionId id = ShuffleTickets.id("job", 1, 0, 2);
        write(store, id, 3);
        LocalFirstShuffleClient client = new LocalFirstShuffleClient("me", store, remote);
        ShuffleLocation mine = at(id, "me");
        assertThat(readAll(client, mine, TestBatches.SCHEMA))
            .isEqualTo(TestBatches.expected(3, ROWS));
        // The stored partition stays readable: a retried consumer reads it again.
        assertThat(readAll(client, mine, TestBatches.SCHEMA))
            .isEqualTo(TestBatches.expected(3, ROWS));
        assertThat(remoteCalls).isEmpty();
      }
    }
  }

  @Test
  void otherExecutorsPartitionsGoToTheRemoteClient() throws Exception {
    try (ShuffleStore store = new ShuffleStore(allocator, workDir, 1 << 20)) {
      ShufflePartitionId id = ShuffleTickets.id("job", 1, 0, 0);
      write(store, id, 1);
      LocalFirstShuffleClient client = new LocalFirstShuffleClient("me", store, remote);
      ShuffleLocation theirs = at(id, "other");
      assertThatThrownBy(() -> readAll(client, theirs, TestBatches.SCHEMA))
          .isInstanceOf(ShuffleFetchException.class)
          .hasMessageContaining("remote");
      assertThat(remoteCalls).containsExactly(theirs);
    }
  }

  @Test
  void missingUnfinishedOrMismatchedPartitionsAreFetchFailures() throws Exception {
    try (ShuffleStore store = new ShuffleStore(allocator, workDir, 1 << 20)) {
      LocalFirstShuffleClient client = new LocalFirstShuffleClient("me", store, remote);
      ShufflePartitionId gone = ShuffleTickets.id("job", 1, 0, 0);
      assertThatThrownBy(() -> readAll(client, at(gone, "me"), TestBatches.SCHEMA))
          .isInstanceOf(ShuffleFetchException.class)
          .hasMessageContaining("no longer holds it");

      ShufflePartitionId writing = ShuffleTickets.id("job", 1, 1, 0);
      try (VectorSchemaRoot batch = TestBatches.batch(allocator, 0, ROWS)) {
        store.append(writing, batch);
      }
      assertThatThrownBy(() -> readAll(client, at(writing, "me"), TestBatches.SCHEMA))
          .isInstanceOf(ShuffleFetchException.class)
          .hasMessageContaining("still being written");
      store.complete(writing, TestBatches.SCHEMA);

      Schema other = new Schema(List.of(Field.nullable("x", ArrowType.Utf8.INSTANCE)));
      assertThatThrownBy(() -> readAll(client, at(writing, "me"), other))
          .isInstanceOf(ShuffleFetchException.class)
          .hasMessageContaining("reader expects");
      assertThat(remoteCalls).isEmpty();
    }
  }

  @Test
  void partitionsOfAnotherExecutorInThisProcessAreReadFromItsStoreWithTheJobsCapability()
      throws Exception {
    ByteString capability = ByteString.copyFromUtf8("job-secret");
    try (ShuffleStore mine = new ShuffleStore(allocator, workDir.resolve("mine"), 1 << 20);
        ShuffleStore peer = new ShuffleStore(allocator, workDir.resolve("peer"), 1 << 20)) {
      ShufflePartitionId id = ShuffleTickets.id("job", 1, 0, 0);
      write(peer, id, 2);
      peer.grant("job", capability);
      LocalFirstShuffleClient client =
          new LocalFirstShuffleClient(
              "me", mine, executor -> executor.equals("peer") ? peer : null, remote);
      ShuffleLocation theirs = at(id, "peer").withCapability(capability);
      assertThat(readAll(client, theirs, TestBatches.SCHEMA))
          .isEqualTo(TestBatches.expected(2, ROWS));
      assertThat(remoteCalls).isEmpty();

      // Without the job's capability, the read goes where a DoGet would be refused.
      ShuffleLocation wrongSecret = theirs.withCapability(ByteString.copyFromUtf8("guess"));
      assertThatThrownBy(() -> readAll(client, wrongSecret, TestBatches.SCHEMA))
          .isInstanceOf(ShuffleFetchException.class)
          .hasMessageContaining("remote");
      // So does a partition the peer does not have, and any of an executor not in this process.
      ShuffleLocation missing =
          at(ShuffleTickets.id("job", 1, 5, 0), "peer").withCapability(capability);
      assertThatThrownBy(() -> readAll(client, missing, TestBatches.SCHEMA))
          .isInstanceOf(ShuffleFetchException.class)
          .hasMessageContaining("remote");
      ShuffleLocation elsewhere = at(id, "far").withCapability(capability);
      assertThatThrownBy(() -> readAll(client, elsewhere, TestBatches.SCHEMA))
          .isInstanceOf(ShuffleFetchException.class);
      assertThat(remoteCalls).containsExactly(wrongSecret, missing, elsewhere);
    }
  }

  @Test
  void aPeerStoreThatClosedOrHasAnotherRootIsLeftToTheRemoteClient() throws Exception {
    ByteString capability = ByteString.copyFromUtf8("job-secret");
    ShufflePartitionId id = ShuffleTickets.id("job", 1, 0, 0);
    try (ShuffleStore mine = new ShuffleStore(allocator, workDir.resolve("mine"), 1 << 20);
        BufferAllocator otherRoot = new RootAllocator()) {
      ShuffleStore closed = new ShuffleStore(allocator, workDir.resolve("closed"), 1 << 20);
      write(closed, id, 1);
      closed.grant("job", capability);
      closed.close();
      try (ShuffleStore foreign =
          new ShuffleStore(otherRoot, workDir.resolve("foreign"), 1 << 20)) {
        try (VectorSchemaRoot batch = TestBatches.batch(otherRoot, 0, ROWS)) {
          foreign.append(id, batch);
        }
        foreign.complete(id, TestBatches.SCHEMA);
        foreign.grant("job", capability);
        LocalFirstShuffleClient client =
            new LocalFirstShuffleClient(
                "me", mine, executor -> executor.equals("closed") ? closed : foreign, remote);
        ShuffleLocation gone = at(id, "closed").withCapability(capability);
        ShuffleLocation otherJvmRoot = at(id, "foreign").withCapability(capability);
        assertThatThrownBy(() -> readAll(client, gone, TestBatches.SCHEMA))
            .isInstanceOf(ShuffleFetchException.class);
        assertThatThrownBy(() -> readAll(client, otherJvmRoot, TestBatches.SCHEMA))
            .isInstanceOf(ShuffleFetchException.class);
        assertThat(remoteCalls).containsExactly(gone, otherJvmRoot);
      }
    }
  }
}
