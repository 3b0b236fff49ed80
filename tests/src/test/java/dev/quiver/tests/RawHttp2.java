package dev.quiver.tests;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Speaks just enough cleartext HTTP/2 to send one request whose header list is as large as a
 * hostile client likes: it ignores the server's advertised SETTINGS_MAX_HEADER_LIST_SIZE, which a
 * well-behaved client (grpc-java's own) would honour, so the server's own limit is what is tested.
 */
final class RawHttp2 {
  private static final byte[] PREFACE =
      "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
  private static final int HEADERS = 0x1;
  private static final int RST_STREAM = 0x3;
  private static final int SETTINGS = 0x4;
  private static final int GOAWAY = 0x7;
  private static final int CONTINUATION = 0x9;
  private static final int END_STREAM = 0x1;
  private static final int END_HEADERS = 0x4;

  /** The smallest SETTINGS_MAX_FRAME_SIZE a server may advertise, so every server takes it. */
  private static final int FRAME = 16_384;

  /** How the server ended the request. */
  record Outcome(String how, long millis) {}

  private RawHttp2() {}

  /**
   * POSTs to {@code path} on {@code host:port} with one extra header {@code x-padding} of {@code
   * paddingBytes} bytes, and waits (at most {@code timeoutMillis}) for the server to answer the
   * stream or close the connection; the time is measured from the connection on.
   */
  static Outcome requestWithHugeHeader(
      String host, int port, String path, int paddingBytes, long timeoutMillis) throws IOException {
    byte[] block = headerBlock(host + ":" + port, path, paddingBytes);
    long start = System.nanoTime();
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(host, port), 5_000);
      socket.setSoTimeout((int) timeoutMillis);
      OutputStream out = socket.getOutputStream();
      DataInputStream in = new DataInputStream(socket.getInputStream());
      out.write(PREFACE);
      frame(out, SETTINGS, 0, 0, new byte[0], 0, 0);
      String how;
      try {
        for (int off = 0; off < block.length; off += FRAME) {
          int len = Math.min(FRAME, block.length - off);
          boolean first = off == 0;
          boolean last = off + len == block.length;
          frame(
              out,
              first ? HEADERS : CONTINUATION,
              (last ? END_HEADERS : 0) | (first ? END_STREAM : 0),
              1,
              block,
              off,
              len);
        }
        out.flush();
        how = awaitAnswer(in);
      } catch (SocketTimeoutException e) {
        how = "no answer";
      } catch (IOException e) {
        // The server closed the connection while the header block was still being sent.
        how = "connection closed while sending (" + e.getMessage() + ")";
      }
      return new Outcome(how, (System.nanoTime() - start) / 1_000_000);
    }
  }

  /** Reads frames until the server answers stream 1, sends GOAWAY or closes. */
  private static String awaitAnswer(DataInputStream in) throws IOException {
    byte[] head = new byte[9];
    while (true) {
      try {
        in.readFully(head);
      } catch (EOFException e) {
        return "connection closed";
      }
      int length = ((head[0] & 0xFF) << 16) | ((head[1] & 0xFF) << 8) | (head[2] & 0xFF);
      int type = head[3] & 0xFF;
      int stream =
          ((head[5] & 0x7F) << 24)
              | ((head[6] & 0xFF) << 16)
              | ((head[7] & 0xFF) << 8)
              | (head[8] & 0xFF);
      in.readFully(new byte[length]);
      if (type == GOAWAY) {
        return "GOAWAY";
      }
      if (stream == 1 && (type == RST_STREAM || type == HEADERS)) {
        return type == RST_STREAM ? "RST_STREAM" : "response headers";
      }
    }
  }

  private static byte[] headerBlock(String authority, String path, int paddingBytes) {
    ByteArrayOutputStream b = new ByteArrayOutputStream(paddingBytes + 256);
    literal(b, ":method", "POST");
    literal(b, ":scheme", "http");
    literal(b, ":path", path);
    literal(b, ":authority", authority);
    literal(b, "content-type", "application/grpc");
    literal(b, "te", "trailers");
    byte[] padding = new byte[paddingBytes];
    Arrays.fill(padding, (byte) 'a');
    literal(b, "x-padding".getBytes(StandardCharsets.US_ASCII), padding);
    return b.toByteArray();
  }

  private static void literal(ByteArrayOutputStream b, String name, String value) {
    literal(b, name.getBytes(StandardCharsets.US_ASCII), value.getBytes(StandardCharsets.US_ASCII));
  }

  /** HPACK "literal header field without indexing, new name", no Huffman coding. */
  private static void literal(ByteArrayOutputStream b, byte[] name, byte[] value) {
    b.write(0x00);
    integer(b, name.length);
    b.writeBytes(name);
    integer(b, value.length);
    b.writeBytes(value);
  }

  /** An HPACK integer with a 7-bit prefix (the Huffman flag, 0, in the top bit). */
  private static void integer(ByteArrayOutputStream b, int value) {
    if (value < 127) {
      b.write(value);
      return;
    }
    b.write(127);
    int rest = value - 127;
    while (rest >= 128) {
      b.write((rest & 0x7F) | 0x80);
      rest >>>= 7;
    }
    b.write(rest);
  }

  private static void frame(
      OutputStream out, int type, int flags, int stream, byte[] payload, int off, int len)
      throws IOException {
    byte[] head = {
      (byte) (len >>> 16),
      (byte) (len >>> 8),
      (byte) len,
      (byte) type,
      (byte) flags,
      (byte) (stream >>> 24),
      (byte) (stream >>> 16),
      (byte) (stream >>> 8),
      (byte) stream
    };
    out.write(head);
    out.write(payload, off, len);
  }
}
