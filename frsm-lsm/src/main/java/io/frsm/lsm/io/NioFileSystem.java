package io.frsm.lsm.io;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** The real file system, through {@link FileChannel}. */
public final class NioFileSystem implements FileSystem {

  public static final NioFileSystem INSTANCE = new NioFileSystem();

  private NioFileSystem() {}

  @Override
  public WritableFile create(Path path) throws IOException {
    FileChannel ch =
        FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    return new NioWritableFile(ch);
  }

  @Override
  public ReadableFile openRead(Path path) throws IOException {
    return new NioReadableFile(FileChannel.open(path, StandardOpenOption.READ));
  }

  @Override
  public boolean exists(Path path) {
    return Files.exists(path);
  }

  @Override
  public long size(Path path) throws IOException {
    return Files.size(path);
  }

  @Override
  public List<Path> list(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> entries = Files.list(dir)) {
      List<Path> result = new ArrayList<>(entries.sorted().toList());
      return result;
    }
  }

  @Override
  public void createDirectories(Path dir) throws IOException {
    Files.createDirectories(dir);
  }

  @Override
  public void delete(Path path) throws IOException {
    Files.deleteIfExists(path);
  }

  @Override
  public void rename(Path source, Path target) throws IOException {
    try {
      Files.move(
          source, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      throw new IOException("the file system cannot rename atomically: " + source, e);
    }
  }

  @Override
  public void syncDirectory(Path dir) throws IOException {
    // Linux makes directory entries durable with fsync on the directory itself.
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    } catch (NoSuchFileException e) {
      throw e;
    } catch (IOException e) {
      // Some platforms refuse to open directories; there the rename itself is the best we have.
      if (!System.getProperty("os.name", "").toLowerCase().contains("win")) {
        throw e;
      }
    }
  }

  private static final class NioWritableFile implements WritableFile {
    private final FileChannel channel;
    private long position;

    NioWritableFile(FileChannel channel) {
      this.channel = channel;
    }

    @Override
    public void write(ByteBuffer src) throws IOException {
      while (src.hasRemaining()) {
        position += channel.write(src);
      }
    }

    @Override
    public void sync() throws IOException {
      channel.force(false);
    }

    @Override
    public long position() {
      return position;
    }

    @Override
    public boolean preallocate(long sizeBytes) throws IOException {
      // Real zeros, not fallocate: an unwritten extent would still cost a metadata update (its
      // conversion to written) at the sync after the first write into it.
      ByteBuffer zeros = ByteBuffer.allocateDirect(PREALLOCATE_CHUNK_BYTES);
      long at = Math.max(position, channel.size());
      while (at < sizeBytes) {
        zeros.clear().limit((int) Math.min(zeros.capacity(), sizeBytes - at));
        while (zeros.hasRemaining()) {
          at += channel.write(zeros, at);
        }
      }
      channel.force(true);
      return true;
    }

    @Override
    public void close() throws IOException {
      channel.close();
    }
  }

  private static final int PREALLOCATE_CHUNK_BYTES = 1 << 20;

  private static final class NioReadableFile implements ReadableFile {
    private final FileChannel channel;

    NioReadableFile(FileChannel channel) {
      this.channel = channel;
    }

    @Override
    public void readFully(ByteBuffer dst, long position) throws IOException {
      long at = position;
      while (dst.hasRemaining()) {
        int n = channel.read(dst, at);
        if (n < 0) {
          throw new EOFException(
              "end of file at " + at + " reading " + dst.remaining() + " more bytes");
        }
        at += n;
      }
    }

    @Override
    public long size() throws IOException {
      return channel.size();
    }

    @Override
    public void close() throws IOException {
      channel.close();
    }
  }
}
