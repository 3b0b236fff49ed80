package dev.quiver.binding.datasource;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.settings.SessionConfig;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.column.impl.ColumnWriteStoreV1;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageWriteStore;
import org.apache.parquet.column.page.PageWriter;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.ColumnMetaData;
import org.apache.parquet.format.CompressionCodec;
import org.apache.parquet.format.ConvertedType;
import org.apache.parquet.format.DataPageHeader;
import org.apache.parquet.format.FieldRepetitionType;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.PageHeader;
import org.apache.parquet.format.PageType;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.SchemaElement;
import org.apache.parquet.format.Type;
import org.apache.parquet.format.Util;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Lists and maps in the layouts older writers (parquet-mr's Avro and Thrift bindings, Hive) used,
 * which the Parquet format's backward-compatibility rules still define: two-level lists whose
 * repeated field is the element ({@code array}, {@code <name>_tuple}, a group of several fields),
 * repeated fields outside any LIST group, Hive's {@code bag}/{@code array_element} three levels,
 * and maps whose key-value group is annotated MAP_KEY_VALUE. The file is shredded by parquet-java's
 * own column writers into several pages and two row groups; Quiver must read what DuckDB reads.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ParquetLegacyListsTest {
  private static final int ROWS = 3000;

  private static final MessageType SCHEMA =
      MessageTypeParser.parseMessageType(
          "message legacy {"
              + " required int64 id;"
              + " optional group a (LIST) { repeated int32 array; }"
              + " optional group b (LIST) { repeated group b_tuple {"
              + "   required binary s (UTF8); optional int32 n; } }"
              + " repeated int32 bare;"
              + " repeated group pairs { required int32 k; optional binary v (UTF8); }"
              + " optional group c (LIST) { repeated group bag { optional int32 array_element; } }"
              + " optional group m (MAP) { repeated group map (MAP_KEY_VALUE) {"
              + "   required binary key (UTF8); optional int64 value; } }"
              + "}");

  @TempDir Path tmp;

  /** Writes record {@code i} of the file. */
  private static void record(RecordConsumer r, int i) {
    r.startMessage();
    field(r, "id", 0, () -> r.addLong(i));
    if (i % 5 != 0) {
      field(
          r,
          "a",
          1,
          () -> {
            r.startGroup();
            int n = i % 5 == 1 ? 0 : i % 4 + 1;
            if (n > 0) {
              field(r, "array", 0, () -> repeat(n, j -> r.addInteger(i + j)));
            }
            r.endGroup();
          });
    }
    if (i % 6 != 0) {
      field(
          r,
          "b",
          2,
          () -> {
            r.startGroup();
            if (i % 3 > 0) {
              field(
                  r,
                  "b_tuple",
                  0,
                  () ->
                      repeat(
                          i % 3,
                          j -> {
                            r.startGroup();
                            field(r, "s", 0, () -> r.addBinary(text("s" + i + "_" + j)));
                            if (j % 2 == 1) {
                              field(r, "n", 1, () -> r.addInteger(j));
                            }
                            r.endGroup();
                          }));
            }
            r.endGroup();
          });
    }
    if (i % 3 > 0) {
      field(r, "bare", 3, () -> repeat(i % 3, j -> r.addInteger(i * 10 + j)));
    }
    if (i % 2 > 0) {
      field(
          r,
          "pairs",
          4,
          () -> {
            r.startGroup();
            field(r, "k", 0, () -> r.addInteger(i));
            if (i % 4 != 1) {
              field(r, "v", 1, () -> r.addBinary(text("v" + i)));
            }
            r.endGroup();
          });
    }
    if (i % 7 != 0) {
      field(
          r,
          "c",
          5,
          () -> {
            r.startGroup();
            field(
                r,
                "bag",
                0,
                () ->
                    repeat(
                        3,
                        j -> {
                          r.startGroup();
                          if (j != 1) {
                            field(r, "array_element", 0, () -> r.addInteger(i + j));
                          }
                          r.endGroup();
                        }));
            r.endGroup();
          });
    }
    if (i % 4 != 0) {
      field(
          r,
          "m",
          6,
          () -> {
            r.startGroup();
            if (i % 4 != 1) {
              field(
                  r,
                  "map",
                  0,
                  () ->
                      repeat(
                          2,
                          j -> {
                            r.startGroup();
                            field(r, "key", 0, () -> r.addBinary(text("k" + j + "_" + i)));
                            if (j == 0) {
                              field(r, "value", 1, () -> r.addLong(-i));
                            }
                            r.endGroup();
                          }));
            }
            r.endGroup();
          });
    }
    r.endMessage();
  }

  private static void field(RecordConsumer r, String name, int index, Runnable values) {
    r.startField(name, index);
    values.run();
    r.endField(name, index);
  }

  private static void repeat(int n, IntConsumer body) {
    for (int j = 0; j < n; j++) {
      body.accept(j);
    }
  }

  private static Binary text(String s) {
    return Binary.fromString(s);
  }

  @Test
  void legacyListsAndMapsReadAsDuckDbReadsThem() throws Exception {
    Path file = tmp.resolve("legacy.parquet");
    LegacyFile.write(file, SCHEMA, ROWS, 2, ParquetLegacyListsTest::record);
    List<String> want =
        SameRows.duckdb("t", "SELECT * FROM read_parquet('" + file + "')", "SELECT * FROM t");
    assertThat(want).hasSize(ROWS);
    for (int partitions : new int[] {1, 3}) {
      try (SessionContext ctx =
          new SessionContext(
              new SessionConfig().withTargetPartitions(partitions).withBatchSize(333))) {
        ctx.registerParquet("t", file.toString());
        SameRows.same(want, SameRows.quiver(ctx, "SELECT * FROM t"), "SELECT * FROM t");
      }
    }
  }

  /**
   * A Parquet file written without parquet-hadoop: parquet-java's column writers shred the records
   * into uncompressed PLAIN pages, and the footer is written with the format's own Thrift
   * structures.
   */
  private static final class LegacyFile {
    /** The pages written for one column of the current row group. */
    private static final class Column implements PageWriter {
      final List<byte[]> pages = new ArrayList<>();
      final List<PageHeader> headers = new ArrayList<>();
      long values;

      @Override
      public void writePage(
          BytesInput bytes,
          int valueCount,
          Statistics<?> statistics,
          Encoding rl,
          Encoding dl,
          Encoding encoding)
          throws IOException {
        writePage(bytes, valueCount, valueCount, statistics, rl, dl, encoding);
      }

      @Override
      public void writePage(
          BytesInput bytes,
          int valueCount,
          int rowCount,
          Statistics<?> statistics,
          Encoding rl,
          Encoding dl,
          Encoding encoding)
          throws IOException {
        byte[] body = bytes.toByteArray();
        PageHeader h = new PageHeader(PageType.DATA_PAGE, body.length, body.length);
        h.setData_page_header(
            new DataPageHeader(
                valueCount,
                org.apache.parquet.format.Encoding.valueOf(encoding.name()),
                org.apache.parquet.format.Encoding.valueOf(dl.name()),
                org.apache.parquet.format.Encoding.valueOf(rl.name())));
        headers.add(h);
        pages.add(body);
        values += valueCount;
      }

      @Override
      public void writePage(
          BytesInput bytes,
          int valueCount,
          int rowCount,
          Statistics<?> statistics,
          org.apache.parquet.column.statistics.SizeStatistics sizes,
          org.apache.parquet.column.statistics.geospatial.GeospatialStatistics geo,
          Encoding rl,
          Encoding dl,
          Encoding encoding)
          throws IOException {
        writePage(bytes, valueCount, rowCount, statistics, rl, dl, encoding);
      }

      @Override
      public void writePageV2(
          int rowCount,
          int nullCount,
          int valueCount,
          BytesInput repetitionLevels,
          BytesInput definitionLevels,
          Encoding dataEncoding,
          BytesInput data,
          Statistics<?> statistics) {
        throw new UnsupportedOperationException("the test writes version 1 pages");
      }

      @Override
      public long getMemSize() {
        return pages.stream().mapToLong(p -> p.length).sum();
      }

      @Override
      public long allocatedSize() {
        return getMemSize();
      }

      @Override
      public void writeDictionaryPage(DictionaryPage page) {
        throw new UnsupportedOperationException("the test writes no dictionary");
      }

      @Override
      public String memUsageString(String prefix) {
        return prefix + getMemSize();
      }
    }

    static void write(
        Path file,
        MessageType schema,
        int rows,
        int rowGroups,
        java.util.function.ObjIntConsumer<RecordConsumer> records)
        throws IOException {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      out.write("PAR1".getBytes(StandardCharsets.US_ASCII));
      List<RowGroup> groups = new ArrayList<>();
      ParquetProperties props =
          ParquetProperties.builder()
              .withDictionaryEncoding(false)
              .withPageSize(2048)
              .withPageRowCountLimit(200)
              .withWriterVersion(ParquetProperties.WriterVersion.PARQUET_1_0)
              .build();
      int perGroup = (rows + rowGroups - 1) / rowGroups;
      for (int first = 0; first < rows; first += perGroup) {
        Map<ColumnDescriptor, Column> columns = new LinkedHashMap<>();
        PageWriteStore pages = d -> columns.computeIfAbsent(d, k -> new Column());
        ColumnWriteStoreV1 store = new ColumnWriteStoreV1(schema, pages, props);
        RecordConsumer consumer = new ColumnIOFactory().getColumnIO(schema).getRecordWriter(store);
        int end = Math.min(rows, first + perGroup);
        for (int i = first; i < end; i++) {
          records.accept(consumer, i);
        }
        store.flush();
        List<ColumnChunk> chunks = new ArrayList<>();
        long groupBytes = 0;
        for (ColumnDescriptor d : schema.getColumns()) {
          Column c = columns.get(d);
          long start = out.size();
          for (int p = 0; p < c.pages.size(); p++) {
            Util.writePageHeader(c.headers.get(p), out);
            out.write(c.pages.get(p));
          }
          long size = out.size() - start;
          groupBytes += size;
          ColumnMetaData meta =
              new ColumnMetaData(
                  Type.valueOf(typeName(d)),
                  List.of(
                      org.apache.parquet.format.Encoding.PLAIN,
                      org.apache.parquet.format.Encoding.RLE),
                  List.of(d.getPath()),
                  CompressionCodec.UNCOMPRESSED,
                  c.values,
                  size,
                  size,
                  start);
          ColumnChunk chunk = new ColumnChunk(start);
          chunk.setMeta_data(meta);
          chunks.add(chunk);
        }
        groups.add(new RowGroup(chunks, groupBytes, end - first));
      }
      List<SchemaElement> elements = new ArrayList<>();
      flatten(schema, elements, true);
      FileMetaData footer = new FileMetaData(1, elements, rows, groups);
      footer.setCreated_by("quiver legacy list test");
      ByteArrayOutputStream tail = new ByteArrayOutputStream();
      Util.writeFileMetaData(footer, tail);
      tail.writeTo(out);
      out.write(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(tail.size()).array());
      out.write("PAR1".getBytes(StandardCharsets.US_ASCII));
      try (OutputStream f = Files.newOutputStream(file)) {
        out.writeTo(f);
      }
    }

    private static String typeName(ColumnDescriptor d) {
      String name = d.getPrimitiveType().getPrimitiveTypeName().name();
      return name.equals("BINARY") ? "BYTE_ARRAY" : name;
    }

    /** The schema in the footer's pre-order list of elements. */
    private static void flatten(
        org.apache.parquet.schema.Type t, List<SchemaElement> out, boolean root) {
      SchemaElement e = new SchemaElement(t.getName());
      if (!root) {
        e.setRepetition_type(FieldRepetitionType.valueOf(t.getRepetition().name()));
      }
      LogicalTypeAnnotation logical = t.getLogicalTypeAnnotation();
      if (logical instanceof LogicalTypeAnnotation.ListLogicalTypeAnnotation) {
        e.setConverted_type(ConvertedType.LIST);
      } else if (logical instanceof LogicalTypeAnnotation.MapLogicalTypeAnnotation) {
        e.setConverted_type(ConvertedType.MAP);
      } else if (logical instanceof LogicalTypeAnnotation.MapKeyValueTypeAnnotation) {
        e.setConverted_type(ConvertedType.MAP_KEY_VALUE);
      } else if (logical instanceof LogicalTypeAnnotation.StringLogicalTypeAnnotation) {
        e.setConverted_type(ConvertedType.UTF8);
      }
      if (t.isPrimitive()) {
        String name = t.asPrimitiveType().getPrimitiveTypeName().name();
        e.setType(Type.valueOf(name.equals("BINARY") ? "BYTE_ARRAY" : name));
        out.add(e);
        return;
      }
      GroupType g = t.asGroupType();
      e.setNum_children(g.getFieldCount());
      out.add(e);
      for (org.apache.parquet.schema.Type child : g.getFields()) {
        flatten(child, out, false);
      }
    }
  }
}
