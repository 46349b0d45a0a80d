/**
 * Where the audit tree's nodes sit in `audit_tree` since schema v22 (docs/storage.md): keyed by
 * the leaf whose append completes a node, then by its level, so each append's rows go at the
 * table's end; and the bounded move of a tree stored before v22 to that key, which the audit
 * feature's start runs step by step (./rpc).
 * @module
 */
import type { Migration } from "../../kernel/schema";
import { int, one, run } from "../../kernel/sql";

/** Levels a node position makes room for (a tree of 2^47 leaves stays within 2^53). */
const LEVELS = 64;

/** The leaf whose append completes node (`level`, `idx`): the last of the leaves it covers. */
const completingLeaf = (level: number, idx: number): number => (idx + 1) * 2 ** level - 1;

/**
 * Where node (`level`, `idx`) sits in `audit_tree`: by the leaf whose append completes it (the
 * last of the leaves it covers, `(idx + 1)·2^level − 1`), then by level. An append stores its leaf
 * and the parents it completes, so positions only grow: each append adds rows at the table's end.
 */
export function nodePosition(level: number, idx: number): number {
  const position = completingLeaf(level, idx) * LEVELS + level;
  if (!Number.isSafeInteger(position) || level >= LEVELS)
    throw new Error(`audit tree node (${level}, ${idx}) has no position`);
  return position;
}

/** The leaves a tree holds whose highest stored position is `position` (its newest leaf completed that node). */
export function leavesUpTo(position: number): number {
  return Math.floor(position / LEVELS) + 1;
}

/** Schema v22's part of the audit tables (./store's `AUDIT_MIGRATIONS`). */
export const TREE_KEY_MIGRATION: Migration = {
  // v22: the tree's nodes keyed in the order appends store them ({@link nodePosition}), so an
  // append adds its rows at the table's end: keyed by (level, idx), every append inserted into
  // the middle of the table (level 0 sorts before the levels above it), splitting pages there.
  // The rows are the same nodes; `level` and `idx` stay as columns. They move when the object
  // starts, in bounded steps ({@link rekeyStep}), and the table then takes the old name.
  version: 22,
  sql: `
  CREATE TABLE audit_tree_v22 (
    pos INTEGER PRIMARY KEY,
    level INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    hash BLOB NOT NULL
  );`,
};

/** Leaves whose nodes one step of the v22 re-keying moves (about twice as many rows), in one transaction. */
const REKEY_STEP_LEAVES = 32_768;

/**
 * One bounded step of schema v22's re-keying: moves the nodes completed by the next `leaves`
 * leaves (from the oldest whose nodes are still in the v21 table) to their positions, in
 * position order, and deletes them there; once that table is empty it is dropped and the new
 * one takes its name. Answers whether rows remain. Each step is the caller's transaction, so a
 * restart resumes where the last committed step ended.
 */
export function rekeyStep(sql: SqlStorage, leaves: number = REKEY_STEP_LEAVES): boolean {
  const pending = "SELECT 1 AS present FROM sqlite_master WHERE type = 'table' AND name = 'audit_tree_v22'";
  if (one(sql, pending) === undefined) return false;
  // The v21 table's first row of each level: the oldest leaf whose nodes have not moved.
  let from = Infinity;
  for (let level = 0; level < LEVELS; level++) {
    const first = one(sql, "SELECT idx FROM audit_tree WHERE level = ? ORDER BY idx LIMIT 1", level);
    if (first !== undefined) from = Math.min(from, completingLeaf(level, int(first, "idx")));
    else if (one(sql, "SELECT 1 AS present FROM audit_tree WHERE level > ? LIMIT 1", level) === undefined) break;
  }
  if (from === Infinity) {
    run(sql, "DROP TABLE audit_tree");
    run(sql, "ALTER TABLE audit_tree_v22 RENAME TO audit_tree");
    return false;
  }
  // Node (level, idx) is completed by leaf (idx + 1)·2^level − 1: here those of leaves [from, to).
  const to = from + leaves;
  const ranges: number[] = [];
  for (let level = 0; 2 ** level <= to; level++)
    ranges.push(level, Math.ceil((from + 1) / 2 ** level) - 1, Math.floor(to / 2 ** level) - 1);
  const where = Array.from({ length: ranges.length / 3 }, () => "(level = ? AND idx BETWEEN ? AND ?)").join(" OR ");
  run(
    sql,
    `INSERT INTO audit_tree_v22 (pos, level, idx, hash) SELECT ((idx + 1) * (1 << level) - 1) * ${LEVELS} + level, level, idx, hash FROM audit_tree WHERE ${where} ORDER BY 1`,
    ...ranges,
  );
  run(sql, `DELETE FROM audit_tree WHERE ${where}`, ...ranges);
  // The node at `from` is always in its level's range, so a step that moves nothing is a bug:
  // thrown, never looped on at the object's start.
  const moved = one(sql, "SELECT changes() AS n");
  if (moved === undefined || int(moved, "n") === 0)
    throw new Error(`audit tree re-keying moved nothing at leaf ${from}`);
  return true;
}
