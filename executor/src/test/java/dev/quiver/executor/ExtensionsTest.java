package dev.quiver.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.Extension;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.udf.ScalarUdf;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(30)
class ExtensionsTest {

  @TempDir Path dir;

  /** Multiplies a BIGINT by two. */
  static final class DoubleIt implements ScalarUdf {
    private final String name;

    DoubleIt(String name) {
      this.name = name;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public List<ArrowType> argumentTypes() {
      return List.of(new ArrowType.Int(64, true));
    }

    @Override
    public ArrowType returnType() {
      return new ArrowType.Int(64, true);
    }

    @Override
    public FieldVector invoke(
        List<FieldVector> arguments, int rowCount, BufferAllocator allocator) {
      BigIntVector in = (BigIntVector) arguments.get(0);
      BigIntVector out = new BigIntVector(name, allocator);
      out.allocateNew(rowCount);
      for (int i = 0; i < rowCount; i++) {
        if (in.isNull(i)) {
          out.setNull(i);
        } else {
          out.set(i, in.get(i) * 2);
        }
      }
      out.setValueCount(rowCount);
      return out;
    }
  }

  /** An extension jar's service: provides DOUBLE_IT. */
  public static final class DoublingExtension implements Extension {
    @Override
    public List<ScalarUdf> udfs() {
      return List.of(new DoubleIt("DOUBLE_IT"));
    }
  }

  /** Another extension providing a UDF of the same name. */
  public static final class OtherDoublingExtension implements Extension {
    @Override
    public List<ScalarUdf> udfs() {
      return List.of(new DoubleIt("double_it"));
    }
  }

  /** Writes a jar whose only content is a service file naming {@code providers}. */
  static Path extensionJar(Path dir, String name, Class<?>... providers) throws IOException {
    Path jar = dir.resolve(name);
    try (OutputStream file = Files.newOutputStream(jar);
        JarOutputStream out = new JarOutputStream(file)) {
      out.putNextEntry(new JarEntry("META-INF/services/" + Extension.class.getName()));
      for (Class<?> p : providers) {
        out.write((p.getName() + "\n").getBytes(StandardCharsets.UTF_8));
      }
      out.closeEntry();
    }
    return jar;
  }

  @Test
  void findsTheUdfsOfTheExtensionsInTheJars() throws Exception {
    Path jar = extensionJar(dir, "double.jar", DoublingExtension.class);
    try (Extensions extensions = Extensions.load(List.of(jar), getClass().getClassLoader())) {
      assertThat(extensions.udfNames()).containsExactly("double_it");
      assertThat(extensions.udf("Double_It")).get().isInstanceOf(DoubleIt.class);
      assertThat(extensions.udf("triple_it")).isEmpty();
      assertThat(
              extensions
                  .classLoader()
                  .getResource("META-INF/services/" + Extension.class.getName()))
          .isNotNull();
    }
  }

  @Test
  void withoutJarsThereAreNoUdfsAndTheExecutorsOwnLoader() {
    try (Extensions extensions = Extensions.load(List.of(), getClass().getClassLoader())) {
      assertThat(extensions.udfNames()).isEmpty();
      assertThat(extensions.classLoader()).isSameAs(getClass().getClassLoader());
    }
  }

  @Test
  void twoExtensionsWithOneUdfNameAreRefused() throws Exception {
    Path a = extensionJar(dir, "a.jar", DoublingExtension.class);
    Path b = extensionJar(dir, "b.jar", OtherDoublingExtension.class);
    assertThatThrownBy(() -> Extensions.load(List.of(a, b), getClass().getClassLoader()))
        .isInstanceOf(QuiverException.class)
        .hasMessageContaining("UDF 'double_it' is provided by both")
        .hasMessageContaining("DoublingExtension");
  }

  @Test
  void aMissingJarIsNamed() {
    Path missing = dir.resolve("missing.jar");
    assertThatThrownBy(() -> Extensions.load(List.of(missing), getClass().getClassLoader()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("missing.jar does not exist");
  }

  @Test
  void aBrokenServiceFileIsATypedError() throws Exception {
    Path jar = dir.resolve("broken.jar");
    try (OutputStream file = Files.newOutputStream(jar);
        JarOutputStream out = new JarOutputStream(file)) {
      out.putNextEntry(new JarEntry("META-INF/services/" + Extension.class.getName()));
      out.write("com.example.NoSuchExtension\n".getBytes(StandardCharsets.UTF_8));
      out.closeEntry();
    }
    assertThatThrownBy(() -> Extensions.load(List.of(jar), getClass().getClassLoader()))
        .isInstanceOf(QuiverException.class)
        .hasMessageContaining("Cannot load the Quiver extensions")
        .hasMessageContaining("com.example.NoSuchExtension");
  }
}
