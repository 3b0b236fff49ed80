package dev.quiver.iceberg.table;

import dev.quiver.binding.errors.DataSourceException;
import dev.quiver.binding.errors.ObjectStoreException;
import dev.quiver.binding.io.ObjectReader;
import dev.quiver.binding.io.ObjectStore;
import dev.quiver.binding.io.ObjectStores;
import dev.quiver.binding.io.StoredObject;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.iceberg.io.QuiverFileIO;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds the metadata file of a table given by location, as Iceberg's Hadoop tables lay them out: a
 * {@code .metadata.json} file is itself; a table folder's {@code metadata/version-hint.text} names
 * its current version, and without one the newest {@code vN.metadata.json} (or {@code
 * NNNNN-uuid.metadata.json}) in {@code metadata/} is current.
 */
public final class IcebergLocations {
  private static final Pattern VERSIONED =
      Pattern.compile("(?:v(\\d+)|(\\d+)-[^/]*)\\.metadata\\.json(?:\\.gz)?");

  private IcebergLocations() {}

  /** The metadata file of the table at {@code location}. */
  public static String metadataFile(String location, SessionConfig config) {
    String found = find(location, config);
    if (found == null) {
      throw new DataSourceException(
          "No Iceberg table at "
              + location
              + ": it has no metadata/ folder with a metadata.json file; give a table folder or"
              + " a .metadata.json file");
    }
    return found;
  }

  /** The metadata file of the table at {@code location}, or null when there is no table there. */
  public static String find(String location, SessionConfig config) {
    String l = location.trim();
    if (l.endsWith(".metadata.json") || l.endsWith(".metadata.json.gz")) {
      return l;
    }
    while (l.endsWith("/")) {
      l = l.substring(0, l.length() - 1);
    }
    String folder = QuiverFileIO.storeLocation(l);
    ObjectStore store = ObjectStores.forLocation(folder, config);
    String metadata = store.resolve(folder, "metadata");
    String hint = store.resolve(metadata, "version-hint.text");
    String hinted = readHint(store, hint);
    if (hinted != null) {
      String byVersion = store.resolve(metadata, "v" + hinted + ".metadata.json");
      if (exists(store, byVersion)) {
        return byVersion;
      }
      String byName = store.resolve(metadata, hinted);
      if (hinted.contains(".metadata.json") && exists(store, byName)) {
        return byName;
      }
    }
    List<StoredObject> listed;
    try {
      listed = store.list(metadata);
    } catch (ObjectStoreException e) {
      if (e.reason() == ObjectStoreException.Reason.NOT_FOUND) {
        return null;
      }
      throw e;
    }
    String best = null;
    long bestVersion = -1;
    for (StoredObject o : listed) {
      String name = o.location().substring(o.location().lastIndexOf('/') + 1);
      Matcher m = VERSIONED.matcher(name);
      if (m.matches()) {
        long v = Long.parseLong(m.group(1) != null ? m.group(1) : m.group(2));
        if (v > bestVersion) {
          bestVersion = v;
          best = o.location();
        }
      }
    }
    return best;
  }

  private static String readHint(ObjectStore store, String hint) {
    try (ObjectReader in = store.open(hint, -1)) {
      String text = new String(in.read(0, (int) in.size()), StandardCharsets.UTF_8).trim();
      return text.isEmpty() ? null : text;
    } catch (ObjectStoreException e) {
      if (e.reason() == ObjectStoreException.Reason.NOT_FOUND) {
        return null;
      }
      throw e;
    }
  }

  private static boolean exists(ObjectStore store, String location) {
    try {
      return !store.list(location).isEmpty();
    } catch (ObjectStoreException e) {
      if (e.reason() == ObjectStoreException.Reason.NOT_FOUND) {
        return false;
      }
      throw e;
    }
  }
}
