/**
 * The shapes a feature declares its stored data in: its tables' DDL per schema version, and the
 * rows that expire. A leaf module: a feature's `store.ts` imports these types, and the modules
 * that run them (./migrations, ./retention/sweep) read the declarations through ./features.
 * @module
 */

/**
 * One feature's part of one schema version: the DDL of its own tables. Each feature's `store.ts`
 * declares its parts; a version is the union of every feature's part of that number.
 */
export interface Migration {
  readonly version: number;
  readonly sql: string;
}

/**
 * One kind of row that expires: rows of `table` matching `where` whose `age` (a column or an
 * indexed expression, Unix seconds) is at most `now − keep(window)`. `key` names each row (a
 * primary key or `rowid`). The SQL is the owning feature's, written in its `store.ts`; the sweep
 * only runs it.
 */
export interface ExpiryRule {
  readonly table: string;
  readonly key: string;
  readonly where?: string;
  readonly age: string;
  /** Seconds a row is kept past its age, given the consumer's `retention_seconds` and its approval window. */
  keep(window: number, approvalWindow: number): number;
}
