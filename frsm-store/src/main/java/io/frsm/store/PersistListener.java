package io.frsm.store;

import io.frsm.cell.Cell;

/** Told about every persist the {@link LsmPersister} carries out, before the core hears of it. */
public interface PersistListener {
  PersistListener NONE =
      new PersistListener() {
        @Override
        public void persisted(Cell delta) {}

        @Override
        public void persistFailed(Cell delta) {}
      };

  /** {@code delta} is durable and visible to {@code LsmEngine.get}. */
  void persisted(Cell delta);

  /** {@code delta} may or may not have become durable. */
  void persistFailed(Cell delta);
}
