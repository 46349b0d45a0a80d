import type { Migration } from "../../kernel/schema";
import { all, int, intOrNull, one, run, text } from "../../kernel/sql";

/** The tools service's tables (schema v5): every version of every data-defined tool, and which is current. */
export const TOOL_MIGRATIONS: readonly Migration[] = [
  {
    version: 5,
    sql: `
  CREATE TABLE tool_versions (
    name TEXT NOT NULL,
    version INTEGER NOT NULL,
    definition TEXT NOT NULL,
    revisions TEXT NOT NULL,
    defined_at INTEGER NOT NULL,
    PRIMARY KEY (name, version)
  );
  CREATE TABLE tools (
    name TEXT PRIMARY KEY,
    current_version INTEGER NOT NULL,
    disabled_at INTEGER
  );`,
  },
];

/** One stored version: the definition as canonical JSON, its revisions as canonical JSON. */
export interface StoredToolVersion {
  readonly name: string;
  readonly version: number;
  readonly definition: string;
  readonly revisions: string;
  readonly definedAt: number;
}

/** A tool's current state. */
export interface StoredTool {
  readonly name: string;
  readonly currentVersion: number;
  readonly disabledAt: number | null;
}

function versionOf(row: Record<string, SqlStorageValue>): StoredToolVersion {
  return {
    name: text(row, "name"),
    version: int(row, "version"),
    definition: text(row, "definition"),
    revisions: text(row, "revisions"),
    definedAt: int(row, "defined_at"),
  };
}

/** All SQL of the tools tables; every call runs inside the caller's transaction. */
export class ToolStore {
  constructor(private readonly sql: SqlStorage) {}

  tool(name: string): StoredTool | undefined {
    const row = one(this.sql, "SELECT name, current_version, disabled_at FROM tools WHERE name = ?", name);
    return row === undefined
      ? undefined
      : {
          name: text(row, "name"),
          currentVersion: int(row, "current_version"),
          disabledAt: intOrNull(row, "disabled_at"),
        };
  }

  /** Every tool, by name. */
  tools(): StoredTool[] {
    return all(this.sql, "SELECT name, current_version, disabled_at FROM tools ORDER BY name").map((row) => ({
      name: text(row, "name"),
      currentVersion: int(row, "current_version"),
      disabledAt: intOrNull(row, "disabled_at"),
    }));
  }

  version(name: string, version: number): StoredToolVersion | undefined {
    const row = one(this.sql, "SELECT * FROM tool_versions WHERE name = ? AND version = ?", name, version);
    return row === undefined ? undefined : versionOf(row);
  }

  /** The enabled tools' current versions. */
  current(): StoredToolVersion[] {
    return all(
      this.sql,
      "SELECT v.* FROM tools t JOIN tool_versions v ON v.name = t.name AND v.version = t.current_version WHERE t.disabled_at IS NULL ORDER BY t.name",
    ).map(versionOf);
  }

  /** A tool's versions, newest first, at most `limit`. */
  history(name: string, limit: number): StoredToolVersion[] {
    return all(this.sql, "SELECT * FROM tool_versions WHERE name = ? ORDER BY version DESC LIMIT ?", name, limit).map(
      versionOf,
    );
  }

  /** Stores a new current version (enabling the tool again if it was disabled). */
  append(name: string, version: number, definition: string, revisions: string, now: number): void {
    run(
      this.sql,
      "INSERT INTO tool_versions (name, version, definition, revisions, defined_at) VALUES (?, ?, ?, ?, ?)",
      name,
      version,
      definition,
      revisions,
      now,
    );
    run(
      this.sql,
      "INSERT INTO tools (name, current_version, disabled_at) VALUES (?, ?, NULL) ON CONFLICT (name) DO UPDATE SET current_version = excluded.current_version, disabled_at = NULL",
      name,
      version,
    );
  }

  /** Re-enables the current version without a new one (the same definition sent again). */
  enable(name: string): void {
    run(this.sql, "UPDATE tools SET disabled_at = NULL WHERE name = ?", name);
  }

  disable(name: string, now: number): void {
    run(this.sql, "UPDATE tools SET disabled_at = ? WHERE name = ?", now, name);
  }

  /** How many tools the consumer has defined (enabled or not). */
  count(): number {
    const row = one(this.sql, "SELECT COUNT(*) AS n FROM tools");
    return row === undefined ? 0 : int(row, "n");
  }
}
