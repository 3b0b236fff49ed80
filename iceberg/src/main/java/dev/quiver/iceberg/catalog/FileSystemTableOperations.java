package dev.quiver.iceberg.catalog;

import dev.quiver.binding.errors.DataSourceException;
import dev.quiver.binding.io.ObjectStores;
import dev.quiver.binding.io.PendingObject;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.iceberg.io.QuiverFileIO;
import dev.quiver.iceberg.table.IcebergLocations;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.LocationProviders;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.LocationProvider;

/**
 * A table kept in a folder the way Iceberg's Hadoop tables keep it: {@code
 * metadata/vN.metadata.json} per version and {@code metadata/version-hint.text} naming the current
 * one. A commit writes the next version's file only if no other commit wrote it first, which a
 * local file system decides atomically (a hard link to the written file fails when the name
 * exists), so concurrent writers retry rather than overwrite each other. Object stores have no such
 * operation: there a commit checks and writes, which is safe for one writer only (as Iceberg's own
 * Hadoop tables on S3); concurrent writers to S3 need a catalog (the REST catalog).
 */
public final class FileSystemTableOperations implements TableOperations {
  private static final Pattern VERSION = Pattern.compile(".*/v(\\d+)\\.metadata\\.json");

  private final String location;
  private final QuiverFileIO io;
  private TableMetadata current;
  private int version = -1;

  /** The table in folder {@code location}, reached with {@code config}'s store settings. */
  public FileSystemTableOperations(String location, SessionConfig config) {
    String l = location;
    while (l.endsWith("/")) {
      l = l.substring(0, l.length() - 1);
    }
    this.location = l;
    this.io = new QuiverFileIO(config);
  }

  @Override
  public synchronized TableMetadata current() {
    if (current == null && version < 0) {
      refresh();
    }
    return current;
  }

  @Override
  public synchronized TableMetadata refresh() {
    String file = IcebergLocations.find(location, io.config());
    if (file == null) {
      // No table here yet: a create commits version 1.
      current = null;
      version = 0;
      return null;
    }
    Matcher m = VERSION.matcher(file.replace('\\', '/'));
    version = m.matches() ? Integer.parseInt(m.group(1)) : 0;
    current = TableMetadataParser.read(io, file);
    return current;
  }

  @Override
  public synchronized void commit(TableMetadata base, TableMetadata metadata) {
    TableMetadata latest = refresh();
    if (base != latest
        && (base == null
            || latest == null
            || !base.metadataFileLocation().equals(latest.metadataFileLocation()))) {
      throw new CommitFailedException(
          "Cannot commit to Iceberg table %s: it changed since it was read", location);
    }
    int next = version + 1;
    String target = metadataFileLocation("v" + next + ".metadata.json");
    String temp = metadataFileLocation(UUID.randomUUID() + ".metadata.json.tmp");
    TableMetadataParser.write(metadata, io.newOutputFile(temp));
    try {
      publish(temp, target);
    } finally {
      io.deleteFile(temp);
    }
    writeHint(next);
    current = TableMetadataParser.read(io, target);
    version = next;
  }

  /** Makes {@code temp}'s content version {@code target}, failing if another commit made it. */
  private void publish(String temp, String target) {
    String t = QuiverFileIO.storeLocation(target);
    if (!ObjectStores.isS3(t)) {
      try {
        Files.createLink(Path.of(t), Path.of(QuiverFileIO.storeLocation(temp)));
      } catch (FileAlreadyExistsException e) {
        throw new CommitFailedException(
            "Cannot commit to Iceberg table %s: another commit wrote %s first", location, target);
      } catch (IOException | UnsupportedOperationException e) {
        throw new DataSourceException(
            "Cannot write Iceberg metadata " + target + ": " + e.getMessage(), e);
      }
      return;
    }
    if (io.newInputFile(target).exists()) {
      throw new CommitFailedException(
          "Cannot commit to Iceberg table %s: another commit wrote %s first", location, target);
    }
    try (var in = io.newInputFile(temp).newStream();
        PendingObject out = ObjectStores.forLocation(t, io.config()).create(t)) {
      in.transferTo(out);
      out.commit();
    } catch (IOException e) {
      throw new DataSourceException(
          "Cannot write Iceberg metadata " + target + ": " + e.getMessage(), e);
    }
  }

  private void writeHint(int next) {
    String hint = QuiverFileIO.storeLocation(metadataFileLocation("version-hint.text"));
    try (PendingObject out = ObjectStores.forLocation(hint, io.config()).create(hint)) {
      out.write(Integer.toString(next).getBytes(StandardCharsets.UTF_8));
      out.commit();
    } catch (IOException e) {
      throw new DataSourceException(
          "Cannot write Iceberg version hint " + hint + ": " + e.getMessage(), e);
    }
  }

  @Override
  public FileIO io() {
    return io;
  }

  @Override
  public String metadataFileLocation(String fileName) {
    return location + "/metadata/" + fileName;
  }

  @Override
  public LocationProvider locationProvider() {
    TableMetadata m = current();
    return LocationProviders.locationsFor(
        m == null ? location : m.location(), m == null ? java.util.Map.of() : m.properties());
  }
}
