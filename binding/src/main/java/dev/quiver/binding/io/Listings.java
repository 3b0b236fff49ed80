package dev.quiver.binding.io;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The listings made for one statement: each location of a store is listed once however often the
 * statement reads it (a file-reading table function twice in a self-join, a prefix read as CSV and
 * as Parquet), so that a statement sees one version of a prefix and pays for one LIST. Registered
 * tables list their location once, when registered, and need none of this.
 */
public final class Listings {
  private record Key(ObjectStore store, String location) {}

  private final Map<Key, List<StoredObject>> listed = new ConcurrentHashMap<>();
  private final boolean remember;

  private Listings(boolean remember) {
    this.remember = remember;
  }

  /** Listings remembered until this object is dropped (one statement's). */
  public static Listings perStatement() {
    return new Listings(true);
  }

  /** No memory: every call lists (a table opened on its own, by registration). */
  public static Listings none() {
    return new Listings(false);
  }

  /**
   * {@link ObjectStore#list} of {@code location}, made once per {@code store} and location; a glob
   * ({@link Globs}) lists its base and keeps the objects it matches.
   */
  public List<StoredObject> list(ObjectStore store, String location) {
    if (Globs.isGlob(location)) {
      java.util.function.Predicate<String> matches = Globs.matcher(location);
      return listed(store, Globs.base(location)).stream()
          .filter(o -> matches.test(o.location()))
          .toList();
    }
    return listed(store, location);
  }

  private List<StoredObject> listed(ObjectStore store, String location) {
    if (!remember) {
      return store.list(location);
    }
    Key key = new Key(store, location);
    List<StoredObject> known = listed.get(key);
    if (known != null) {
      return known;
    }
    // Listed outside the map's lock: a LIST can take long, and a failure is not remembered.
    List<StoredObject> objects = List.copyOf(store.list(location));
    List<StoredObject> raced = listed.putIfAbsent(key, objects);
    return raced == null ? objects : raced;
  }
}
