package io.frsm.lsm.commitlog;

import io.frsm.lsm.io.FileSystem;
import io.frsm.lsm.io.ReadableFile;
import io.frsm.lsm.io.WritableFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/** Passes every call to another file system; test doubles override what they change. */
class ForwardingFileSystem implements FileSystem {
  protected final FileSystem delegate;

  ForwardingFileSystem(FileSystem delegate) {
    this.delegate = delegate;
  }

  @Override
  public WritableFile create(Path path) throws IOException {
    return delegate.create(path);
  }

  @Override
  public ReadableFile openRead(Path path) throws IOException {
    return delegate.openRead(path);
  }

  @Override
  public boolean exists(Path path) {
    return delegate.exists(path);
  }

  @Override
  public long size(Path path) throws IOException {
    return delegate.size(path);
  }

  @Override
  public List<Path> list(Path dir) throws IOException {
    return delegate.list(dir);
  }

  @Override
  public void createDirectories(Path dir) throws IOException {
    delegate.createDirectories(dir);
  }

  @Override
  public void delete(Path path) throws IOException {
    delegate.delete(path);
  }

  @Override
  public void rename(Path source, Path target) throws IOException {
    delegate.rename(source, target);
  }

  @Override
  public void syncDirectory(Path dir) throws IOException {
    delegate.syncDirectory(dir);
  }
}
