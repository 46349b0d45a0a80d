import { bytesToHex } from "@noble/hashes/utils.js";
import { readJson } from "../../../core/json";
import {
  capabilityOperation,
  decodeState,
  encodeState,
  initialState,
  writeWireJson,
  type CapabilityEngineState,
  type CapabilityOperation,
} from "../../../core/capability";
import type { Migration } from "../../kernel/schema";
import { all, int, one, run, text } from "../../kernel/sql";
import { MAILBOX_CAPABILITY_COLUMN, MAILBOX_TABLES } from "./mailbox";

/** SQLite rows hold at most 2 MB; the encoded state is split into chunks below that. */
const CHUNK_CHARS = 512 * 1024;

/** One effect waiting for its provider, bound to the binding current when it was queued. */
export interface OutboxRow {
  rowId: number;
  providerId: string;
  bindingId: string;
  effectSequence: string;
  /** `ProviderBoundCapabilityEffectEnvelope` in wire JSON. */
  envelope: string;
}

/** A long-poll attachment: the binding lives while the provider keeps polling. */
export interface LeaseRow {
  providerId: string;
  bindingId: string;
  expiresMs: number;
}

/**
 * The capability service's SQLite tables (migrations v2 and v4): the encoded engine state, the
 * per-provider effect outbox, long-poll leases and the cursor key (the completion mailboxes
 * are in mailbox.ts). Every call runs inside the caller's transaction.
 */
export class CapabilityStore {
  constructor(private readonly sql: SqlStorage) {}

  /** The checkpointed engine state, or a fresh one. A stored state that does not decode is a bug. */
  loadCheckpoint(): CapabilityEngineState {
    const rows = all(this.sql, "SELECT text FROM capability_state ORDER BY chunk");
    if (rows.length === 0) return initialState();
    const decoded = decodeState(rows.map((row) => text(row, "text")).join(""));
    if (!decoded.ok) throw new Error(`stored capability state does not decode: ${decoded.error.code}`);
    return decoded.state;
  }

  /** Replaces the checkpoint and empties the operation log. */
  saveCheckpoint(state: CapabilityEngineState): void {
    const encoded = encodeState(state);
    run(this.sql, "DELETE FROM capability_state");
    run(this.sql, "DELETE FROM capability_log");
    for (let i = 0, chunk = 0; i < encoded.length; i += CHUNK_CHARS, chunk++) {
      run(
        this.sql,
        "INSERT INTO capability_state (chunk, text) VALUES (?, ?)",
        chunk,
        encoded.slice(i, i + CHUNK_CHARS),
      );
    }
  }

  /** Operations applied since the checkpoint, oldest first (replayed on load: the engine is deterministic). */
  loadLog(): CapabilityOperation[] {
    return all(this.sql, "SELECT op FROM capability_log ORDER BY seq").map((row) => {
      const read = readJson(text(row, "op"), { integers: "bigint", domain: false, maxBytes: 64 << 20 });
      const parsed = read.ok ? capabilityOperation.safeParse(read.value) : undefined;
      if (parsed === undefined || !parsed.success) throw new Error("a logged capability operation does not decode");
      return parsed.data;
    });
  }

  /** Appends operations to the log. */
  appendLog(operations: readonly CapabilityOperation[]): void {
    for (const operation of operations)
      run(this.sql, "INSERT INTO capability_log (op) VALUES (?)", writeWireJson(operation));
  }

  /** Queues one bound effect for its provider. */
  enqueue(providerId: string, bindingId: bigint, effectSequence: bigint, envelope: string): void {
    run(
      this.sql,
      "INSERT INTO capability_outbox (provider_id, binding_id, effect_sequence, envelope) VALUES (?, ?, ?, ?)",
      providerId,
      bindingId.toString(),
      effectSequence.toString(),
      envelope,
    );
  }

  /** Queued effects of a provider's binding, oldest first. */
  pending(providerId: string, bindingId: bigint): OutboxRow[] {
    return all(
      this.sql,
      "SELECT * FROM capability_outbox WHERE provider_id = ? AND binding_id = ? ORDER BY row_id",
      providerId,
      bindingId.toString(),
    ).map((row) => ({
      rowId: int(row, "row_id"),
      providerId: text(row, "provider_id"),
      bindingId: text(row, "binding_id"),
      effectSequence: text(row, "effect_sequence"),
      envelope: text(row, "envelope"),
    }));
  }

  /** Removes delivered (or acknowledged) rows. */
  remove(rowIds: readonly number[]): void {
    for (const id of rowIds) run(this.sql, "DELETE FROM capability_outbox WHERE row_id = ?", id);
  }

  /** Drops every queued effect of a provider whose binding is not `keep` (detached or replaced). */
  dropStale(providerId: string, keep: bigint | null): void {
    if (keep === null) run(this.sql, "DELETE FROM capability_outbox WHERE provider_id = ?", providerId);
    else
      run(
        this.sql,
        "DELETE FROM capability_outbox WHERE provider_id = ? AND binding_id <> ?",
        providerId,
        keep.toString(),
      );
  }

  /** Providers that have queued effects. */
  providersWithPending(): string[] {
    return all(this.sql, "SELECT DISTINCT provider_id FROM capability_outbox").map((row) => text(row, "provider_id"));
  }

  /** Sets (or renews) a long-poll lease. */
  setLease(providerId: string, bindingId: bigint, expiresMs: number): void {
    run(
      this.sql,
      "INSERT INTO capability_leases (provider_id, binding_id, expires_ms) VALUES (?, ?, ?) ON CONFLICT (provider_id) DO UPDATE SET binding_id = excluded.binding_id, expires_ms = excluded.expires_ms",
      providerId,
      bindingId.toString(),
      expiresMs,
    );
  }

  /** The provider's lease, if any. */
  lease(providerId: string): LeaseRow | undefined {
    const row = one(this.sql, "SELECT * FROM capability_leases WHERE provider_id = ?", providerId);
    return row === undefined
      ? undefined
      : { providerId, bindingId: text(row, "binding_id"), expiresMs: int(row, "expires_ms") };
  }

  /** Every lease. */
  leases(): LeaseRow[] {
    return all(this.sql, "SELECT * FROM capability_leases ORDER BY expires_ms").map((row) => ({
      providerId: text(row, "provider_id"),
      bindingId: text(row, "binding_id"),
      expiresMs: int(row, "expires_ms"),
    }));
  }

  /**
   * One long-poll round of a provider's current binding: the lease must still be this
   * binding's; it is renewed until `leaseUntilMs`, effects up to `after` are acknowledged
   * (removed), and the rest are answered. `null`: the lease is gone or another binding's.
   */
  renewPoll(providerId: string, bindingId: bigint, after: bigint | null, leaseUntilMs: number): OutboxRow[] | null {
    const lease = this.lease(providerId);
    if (lease === undefined || lease.bindingId !== bindingId.toString()) return null;
    this.setLease(providerId, bindingId, leaseUntilMs);
    const rows = this.pending(providerId, bindingId);
    const acked = after === null ? [] : rows.filter((row) => BigInt(row.effectSequence) <= after);
    this.remove(acked.map((row) => row.rowId));
    return rows.filter((row) => !acked.includes(row));
  }

  /** Ends a lease. */
  dropLease(providerId: string): void {
    run(this.sql, "DELETE FROM capability_leases WHERE provider_id = ?", providerId);
  }

  /** The object's approvals-cursor key (32 random bytes, hex), made on first use. */
  cursorKey(): string {
    const row = one(this.sql, "SELECT key FROM capability_keys WHERE name = 'approvals-cursor'");
    if (row !== undefined) return text(row, "key");
    const key = bytesToHex(crypto.getRandomValues(new Uint8Array(32)));
    run(this.sql, "INSERT INTO capability_keys (name, key) VALUES ('approvals-cursor', ?)", key);
    return key;
  }
}

/**
 * The capability service's tables: (v2) a state checkpoint in chunks plus the log of operations
 * since, the effect outbox, leases; (v4) the per-actor completion mailboxes and their drop
 * counts (`CompletionMailbox`, mailbox.ts), and the object's cursor key; (v16) each queued
 * completion's capability.
 */
export const CAPABILITY_MIGRATIONS: readonly Migration[] = [
  {
    version: 2,
    sql: `
  CREATE TABLE capability_state (
    chunk INTEGER PRIMARY KEY,
    text TEXT NOT NULL
  );
  CREATE TABLE capability_log (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    op TEXT NOT NULL
  );
  CREATE TABLE capability_outbox (
    row_id INTEGER PRIMARY KEY AUTOINCREMENT,
    provider_id TEXT NOT NULL,
    binding_id TEXT NOT NULL,
    effect_sequence TEXT NOT NULL,
    envelope TEXT NOT NULL
  );
  CREATE INDEX capability_outbox_by_provider ON capability_outbox (provider_id, binding_id, row_id);
  CREATE TABLE capability_leases (
    provider_id TEXT PRIMARY KEY,
    binding_id TEXT NOT NULL,
    expires_ms INTEGER NOT NULL
  );`,
  },
  {
    version: 4,
    sql: `${MAILBOX_TABLES}
  CREATE TABLE capability_keys (
    name TEXT PRIMARY KEY,
    key TEXT NOT NULL
  );`,
  },
  { version: 16, sql: MAILBOX_CAPABILITY_COLUMN },
];
