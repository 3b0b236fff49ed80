package dev.quiver.executor;

import dev.quiver.binding.Extension;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.udf.ScalarUdf;
import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Code an executor loads besides its own: a class loader over extension jars (also used by the plan
 * codec to find table providers) and the UDFs of the {@link Extension}s they provide.
 */
public final class Extensions implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(Extensions.class);

  private final ClassLoader classLoader;
  private final URLClassLoader owned;
  private final Map<String, ScalarUdf> udfs;

  private Extensions(ClassLoader classLoader, URLClassLoader owned, Map<String, ScalarUdf> udfs) {
    this.classLoader = classLoader;
    this.owned = owned;
    this.udfs = udfs;
  }

  /**
   * Loads the extensions found through {@link ServiceLoader} in {@code jars} and on {@code
   * parent}'s class path.
   *
   * @param jars extension jars (or class directories); none means only {@code parent}'s
   * @throws IllegalArgumentException if a jar does not exist
   * @throws QuiverException if an extension cannot be loaded or two provide the same UDF
   */
  public static Extensions load(List<Path> jars, ClassLoader parent) {
    URLClassLoader owned = null;
    ClassLoader loader = parent;
    if (!jars.isEmpty()) {
      URL[] urls = new URL[jars.size()];
      for (int i = 0; i < urls.length; i++) {
        urls[i] = toUrl(jars.get(i));
      }
      owned = new URLClassLoader("quiver-extensions", urls, parent);
      loader = owned;
    }
    try {
      Map<String, ScalarUdf> udfs = new TreeMap<>();
      Map<String, String> providers = new TreeMap<>();
      for (Extension extension : ServiceLoader.load(Extension.class, loader)) {
        String provider = extension.getClass().getName();
        for (ScalarUdf udf : extension.udfs()) {
          String key = udf.name().toLowerCase(Locale.ROOT);
          String earlier = providers.putIfAbsent(key, provider);
          if (earlier != null) {
            throw new QuiverException(
                "UDF '"
                    + udf.name()
                    + "' is provided by both "
                    + earlier
                    + " and "
                    + provider
                    + "; remove one of the extension jars from --classpath");
          }
          udfs.put(key, udf);
        }
      }
      if (!udfs.isEmpty()) {
        // Once per executor, so once per executor of an embedded cluster too: not INFO news.
        LOG.debug("extension UDFs: {}", udfs.keySet());
      }
      return new Extensions(loader, owned, Collections.unmodifiableMap(udfs));
    } catch (ServiceConfigurationError | RuntimeException e) {
      closeQuietly(owned);
      if (e instanceof QuiverException q) {
        throw q;
      }
      throw new QuiverException(
          "Cannot load the Quiver extensions in " + jars + ": " + e.getMessage(), e);
    }
  }

  private static URL toUrl(Path jar) {
    if (!Files.exists(jar)) {
      throw new IllegalArgumentException(
          "extension jar " + jar + " does not exist; check the --classpath entries");
    }
    try {
      return jar.toAbsolutePath().toUri().toURL();
    } catch (MalformedURLException e) {
      throw new IllegalArgumentException("extension jar " + jar + " is not a valid path", e);
    }
  }

  /** The class loader over the extension jars (the executor's own when there are none). */
  public ClassLoader classLoader() {
    return classLoader;
  }

  /** The UDF named {@code name} (case-insensitive), if an extension provides it. */
  public Optional<ScalarUdf> udf(String name) {
    return Optional.ofNullable(udfs.get(name.toLowerCase(Locale.ROOT)));
  }

  /** Names of all UDFs the extensions provide, lower case and sorted. */
  public List<String> udfNames() {
    return new ArrayList<>(udfs.keySet());
  }

  /** Closes the class loader over the extension jars. */
  @Override
  public void close() {
    closeQuietly(owned);
  }

  private static void closeQuietly(URLClassLoader loader) {
    if (loader == null) {
      return;
    }
    try {
      loader.close();
    } catch (IOException e) {
      LOG.warn("could not close the extension class loader: {}", e.toString());
    }
  }
}
