package dev.quiver.binding.datasource.parquet;

import org.apache.parquet.bytes.ByteBufferAllocator;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.column.values.ValuesWriter;
import org.apache.parquet.column.values.dictionary.DictionaryValuesWriter;
import org.apache.parquet.column.values.factory.ValuesWriterFactory;
import org.apache.parquet.column.values.fallback.FallbackValuesWriter;
import org.apache.parquet.column.values.plain.BooleanPlainValuesWriter;
import org.apache.parquet.column.values.plain.FixedLenByteArrayPlainValuesWriter;
import org.apache.parquet.column.values.plain.PlainValuesWriter;

/**
 * Value encoders for data pages: dictionary-encoded (RLE_DICTIONARY pages over a PLAIN dictionary
 * page, as Arrow and parquet-mr's v2 writer do) until the dictionary outgrows its page or does not
 * pay, then PLAIN; booleans always PLAIN. parquet-mr's own factories pair the dictionary with the
 * deprecated PLAIN_DICTIONARY encoding (v1) or with DELTA encodings (v2) that not every reader
 * decodes; these are the encodings every reader, Quiver's included, understands.
 */
final class DictionaryFirstValuesWriters implements ValuesWriterFactory {
  private ParquetProperties props;

  @Override
  public void initialize(ParquetProperties properties) {
    this.props = properties;
  }

  @Override
  public ValuesWriter newValuesWriter(ColumnDescriptor column) {
    int initial = props.getInitialSlabSize();
    int page = props.getPageSizeThreshold();
    ByteBufferAllocator alloc = props.getAllocator();
    ValuesWriter plain =
        switch (column.getPrimitiveType().getPrimitiveTypeName()) {
          case BOOLEAN -> new BooleanPlainValuesWriter();
          case FIXED_LEN_BYTE_ARRAY ->
              new FixedLenByteArrayPlainValuesWriter(
                  column.getPrimitiveType().getTypeLength(), initial, page, alloc);
          default -> new PlainValuesWriter(initial, page, alloc);
        };
    if (!props.isDictionaryEnabled(column)) {
      return plain;
    }
    int max = props.getDictionaryPageSizeThreshold();
    Encoding data = Encoding.RLE_DICTIONARY;
    Encoding dict = Encoding.PLAIN;
    DictionaryValuesWriter dictionary =
        switch (column.getPrimitiveType().getPrimitiveTypeName()) {
          case BOOLEAN -> null;
          case BINARY ->
              new DictionaryValuesWriter.PlainBinaryDictionaryValuesWriter(max, data, dict, alloc);
          case FIXED_LEN_BYTE_ARRAY ->
              new DictionaryValuesWriter.PlainFixedLenArrayDictionaryValuesWriter(
                  max, column.getPrimitiveType().getTypeLength(), data, dict, alloc);
          case INT32 ->
              new DictionaryValuesWriter.PlainIntegerDictionaryValuesWriter(max, data, dict, alloc);
          case INT64 ->
              new DictionaryValuesWriter.PlainLongDictionaryValuesWriter(max, data, dict, alloc);
          case FLOAT ->
              new DictionaryValuesWriter.PlainFloatDictionaryValuesWriter(max, data, dict, alloc);
          case DOUBLE ->
              new DictionaryValuesWriter.PlainDoubleDictionaryValuesWriter(max, data, dict, alloc);
          case INT96 -> null;
        };
    return dictionary == null ? plain : FallbackValuesWriter.of(dictionary, plain);
  }
}
