/**
 * Where data files live: one {@link dev.quiver.binding.io.ObjectStore} interface (list a prefix, an
 * object's size, ranged reads, atomic writes) with a local-folder and an S3 implementation, chosen
 * by URI scheme through {@link dev.quiver.binding.io.ObjectStores}. Table readers and writers go
 * through it and never know which store they use.
 */
package dev.quiver.binding.io;
