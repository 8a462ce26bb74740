package io.frsm.cell;

/**
 * Told when two cells carry the same {@code (epoch, timestamp, accepted)} triple with different
 * bytes or kind. One ballot carries at most one value per instance, so this is corruption (or a
 * protocol bug): it is reported, never silently resolved.
 */
@FunctionalInterface
public interface MergeConflictListener {
  void onConflict(Key key, AcceptedValue kept, AcceptedValue dropped);

  /** Logs every conflict as an error. */
  MergeConflictListener LOG =
      (key, kept, dropped) ->
          System.getLogger(CellMerge.class.getName())
              .log(
                  System.Logger.Level.ERROR,
                  "merge conflict on key {0}: one ballot, one instance, two values: kept {1},"
                      + " dropped {2}; this is corruption or a protocol bug",
                  key,
                  kept,
                  dropped);
}
