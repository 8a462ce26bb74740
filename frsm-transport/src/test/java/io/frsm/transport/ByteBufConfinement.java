package io.frsm.transport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

/**
 * Finds the compiled classes of a module that reference Netty's buffer package ({@code
 * io.netty.buffer}: {@code ByteBuf}, its allocators, {@code Unpooled}, ...), so each module's test
 * can pin which classes may (STYLE.md §4: "ByteBufs stay at the edge").
 *
 * <p>A bytecode scan rather than a source scan: every class a class file uses — as a field or
 * parameter type, a return type hidden behind {@code var} or a chained call, a generic argument, a
 * cast or a class literal — is named in its constant pool by its internal name ({@code
 * io/netty/buffer/ByteBuf}), stored as plain ASCII. Searching the bytes for the package prefix
 * therefore finds every reference, including ones the source never spells out (a wildcard import, a
 * fully qualified name, an inferred type). Public for the other modules' tests (test jar).
 */
public final class ByteBufConfinement {
  private static final byte[] BUFFER_PACKAGE =
      "io/netty/buffer/".getBytes(StandardCharsets.US_ASCII);

  private ByteBufConfinement() {}

  /**
   * The compiled-classes root that {@code anyClass} came from: a directory (e.g. {@code
   * target/classes}), or the root inside its jar when another module of the reactor was packaged
   * first (frsm-client's classes reach frsm-transport's tests as a jar under {@code verify}).
   */
  public static Path classesRootOf(Class<?> anyClass) {
    Path location;
    try {
      location = Path.of(anyClass.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException("no class path root for " + anyClass, e);
    }
    if (!Files.isRegularFile(location)) {
      return location;
    }
    try {
      // Left open: a test reads it to the end of the JVM, and the zip file system is read-only.
      return FileSystems.newFileSystem(location).getPath("/");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open " + location, e);
    }
  }

  /** Every class file under {@code root}, as binary names ({@code a.b.Outer$Inner}), sorted. */
  public static List<String> classes(Path root) {
    if (!Files.isDirectory(root)) {
      throw new IllegalStateException(root + " is not a directory of compiled classes");
    }
    try (Stream<Path> files = Files.walk(root)) {
      return files
          .filter(f -> f.toString().endsWith(".class"))
          .map(f -> binaryName(root, f))
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The classes under {@code root} whose constant pool names anything in {@code io.netty.buffer}.
   */
  public static List<String> referencingNettyBuffers(Path root) {
    return classes(root).stream().filter(name -> references(root, name)).toList();
  }

  /** Whether {@code binaryName} is {@code outer} or one of its nested classes. */
  public static boolean isOrNestedIn(String binaryName, Class<?> outer) {
    return binaryName.equals(outer.getName()) || binaryName.startsWith(outer.getName() + "$");
  }

  private static boolean references(Path root, String binaryName) {
    Path file = root.resolve(binaryName.replace('.', '/') + ".class");
    try {
      return contains(Files.readAllBytes(file), BUFFER_PACKAGE);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static boolean contains(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }

  private static String binaryName(Path root, Path classFile) {
    String relative = root.relativize(classFile).toString();
    String[] parts = relative.substring(0, relative.length() - ".class".length()).split("[/\\\\]");
    return String.join(".", Arrays.asList(parts));
  }
}
