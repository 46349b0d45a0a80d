import type { Migration } from "../../kernel/schema";
import { all, one, run, text } from "../../kernel/sql";

/** The secrets service's table (schema v5): write-only consumer secrets, AES-GCM ciphertext only. */
export const SECRET_MIGRATIONS: readonly Migration[] = [
  {
    version: 5,
    sql: `
  CREATE TABLE secrets (
    name TEXT PRIMARY KEY,
    iv BLOB NOT NULL,
    ciphertext BLOB NOT NULL,
    updated_at INTEGER NOT NULL
  );`,
  },
];

/** A sealed secret as stored. */
export interface SealedSecret {
  readonly iv: Uint8Array;
  readonly ciphertext: Uint8Array;
}

/** All SQL of the secrets table; every call runs inside the caller's transaction. */
export class SecretStore {
  constructor(private readonly sql: SqlStorage) {}

  put(name: string, sealed: SealedSecret, now: number): void {
    run(
      this.sql,
      "INSERT INTO secrets (name, iv, ciphertext, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT (name) DO UPDATE SET iv = excluded.iv, ciphertext = excluded.ciphertext, updated_at = excluded.updated_at",
      name,
      sealed.iv.slice().buffer,
      sealed.ciphertext.slice().buffer,
      now,
    );
  }

  get(name: string): SealedSecret | undefined {
    const row = one(this.sql, "SELECT iv, ciphertext FROM secrets WHERE name = ?", name);
    return row === undefined
      ? undefined
      : { iv: new Uint8Array(row.iv as ArrayBuffer), ciphertext: new Uint8Array(row.ciphertext as ArrayBuffer) };
  }

  has(name: string): boolean {
    return one(this.sql, "SELECT 1 AS present FROM secrets WHERE name = ?", name) !== undefined;
  }

  delete(name: string): boolean {
    const had = this.has(name);
    run(this.sql, "DELETE FROM secrets WHERE name = ?", name);
    return had;
  }

  names(): string[] {
    return all(this.sql, "SELECT name FROM secrets ORDER BY name").map((row) => text(row, "name"));
  }
}
