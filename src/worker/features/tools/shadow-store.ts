import { canonicalJson, type Json } from "../../../core/json";
import type { ExpiryRule, Migration } from "../../kernel/schema";
import { all, int, one, run, storedJson, text, textOrNull, type SqlRow } from "../../kernel/sql";
import type { PolicyDecision } from "./rules";

/** Disagreements kept per tool, the newest (older ones are dropped as new ones come). */
export const SHADOW_KEPT = 100;

/**
 * The shadow rules' tables (schema v20): per tool and shadow revision, how many calls were
 * evaluated, agreed and disagreed by kind; and the newest disagreements, by digest and subject
 * (arguments only when the consumer keeps them in its audit records).
 */
export const SHADOW_MIGRATIONS: readonly Migration[] = [
  {
    version: 20,
    sql: `
  CREATE TABLE tool_shadow_counts (
    tool TEXT NOT NULL,
    revision TEXT NOT NULL,
    evaluated INTEGER NOT NULL,
    agreed INTEGER NOT NULL,
    authorize INTEGER NOT NULL,
    approval INTEGER NOT NULL,
    first_at INTEGER NOT NULL,
    last_at INTEGER NOT NULL,
    PRIMARY KEY (tool, revision)
  );
  CREATE INDEX tool_shadow_counts_by_age ON tool_shadow_counts (last_at);
  CREATE TABLE tool_shadow_disagreements (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tool TEXT NOT NULL,
    revision TEXT NOT NULL,
    at INTEGER NOT NULL,
    kind TEXT NOT NULL,
    enforced TEXT NOT NULL,
    shadow TEXT NOT NULL,
    subject_id TEXT NOT NULL,
    call_id TEXT NOT NULL,
    request_sha256 TEXT NOT NULL,
    arguments TEXT
  );
  CREATE INDEX tool_shadow_by_tool ON tool_shadow_disagreements (tool, id);
  CREATE INDEX tool_shadow_by_age ON tool_shadow_disagreements (at);`,
  },
];

/** Both expire with the consumer's retention window: a count once no call touched it for that long. */
export const SHADOW_EXPIRY: readonly ExpiryRule[] = [
  { table: "tool_shadow_disagreements", key: "id", age: "at", keep: (window) => window },
  { table: "tool_shadow_counts", key: "rowid", age: "last_at", keep: (window) => window },
];

/** What a disagreement is about: allow vs refuse, or whether a human decides. */
export type DisagreementKind = "authorize" | "approval";

/** One kept disagreement. */
export interface Disagreement {
  readonly tool: string;
  readonly revision: string;
  readonly at: number;
  readonly kind: DisagreementKind;
  readonly enforced: PolicyDecision;
  readonly shadow: PolicyDecision;
  readonly subject_id: string;
  readonly call_id: string;
  readonly request_sha256: string;
  /** Only when the consumer keeps arguments in its audit records (`audit_arguments: full`). */
  readonly arguments?: Json;
}

/** The counts of one shadow revision. */
export interface ShadowCounts {
  readonly revision: string;
  readonly evaluated: number;
  readonly agreed: number;
  readonly disagreed: { readonly authorize: number; readonly approval: number };
  readonly first_at: number;
  readonly last_at: number;
}

function decision(row: SqlRow, column: string): PolicyDecision {
  const value = text(row, column);
  if (value !== "refused" && value !== "needs_approval" && value !== "allowed")
    throw new Error(`stored ${column} decision outside its words`);
  return value;
}

function disagreementOf(row: SqlRow): Disagreement {
  const kind = text(row, "kind");
  if (kind !== "authorize" && kind !== "approval") throw new Error("stored disagreement kind outside its words");
  const args = textOrNull(row, "arguments");
  return {
    tool: text(row, "tool"),
    revision: text(row, "revision"),
    at: int(row, "at"),
    kind,
    enforced: decision(row, "enforced"),
    shadow: decision(row, "shadow"),
    subject_id: text(row, "subject_id"),
    call_id: text(row, "call_id"),
    request_sha256: text(row, "request_sha256"),
    ...(args === null ? {} : { arguments: storedJson(args, "shadow arguments") }),
  };
}

/** All SQL of the shadow tables; every call runs inside the caller's transaction. */
export class ShadowStore {
  constructor(private readonly sql: SqlStorage) {}

  /** Counts one evaluated call of `tool` under shadow `revision`: agreed, or disagreed on `kind`. */
  count(tool: string, revision: string, kind: DisagreementKind | null, now: number): void {
    run(
      this.sql,
      `INSERT INTO tool_shadow_counts (tool, revision, evaluated, agreed, authorize, approval, first_at, last_at)
       VALUES (?, ?, 1, ?, ?, ?, ?, ?)
       ON CONFLICT (tool, revision) DO UPDATE SET evaluated = evaluated + 1, agreed = agreed + excluded.agreed,
         authorize = authorize + excluded.authorize, approval = approval + excluded.approval, last_at = excluded.last_at`,
      tool,
      revision,
      kind === null ? 1 : 0,
      kind === "authorize" ? 1 : 0,
      kind === "approval" ? 1 : 0,
      now,
      now,
    );
  }

  /** Keeps a disagreement, and drops the tool's older ones past {@link SHADOW_KEPT}. */
  keep(d: Disagreement): void {
    run(
      this.sql,
      "INSERT INTO tool_shadow_disagreements (tool, revision, at, kind, enforced, shadow, subject_id, call_id, request_sha256, arguments) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      d.tool,
      d.revision,
      d.at,
      d.kind,
      d.enforced,
      d.shadow,
      d.subject_id,
      d.call_id,
      d.request_sha256,
      d.arguments === undefined ? null : canonicalJson(d.arguments),
    );
    run(
      this.sql,
      "DELETE FROM tool_shadow_disagreements WHERE tool = ? AND id <= (SELECT id FROM tool_shadow_disagreements WHERE tool = ? ORDER BY id DESC LIMIT 1 OFFSET ?)",
      d.tool,
      d.tool,
      SHADOW_KEPT,
    );
  }

  /** The counts of `tool` under `revision`, if any call was evaluated. */
  counts(tool: string, revision: string): ShadowCounts | undefined {
    const row = one(this.sql, "SELECT * FROM tool_shadow_counts WHERE tool = ? AND revision = ?", tool, revision);
    return row === undefined
      ? undefined
      : {
          revision,
          evaluated: int(row, "evaluated"),
          agreed: int(row, "agreed"),
          disagreed: { authorize: int(row, "authorize"), approval: int(row, "approval") },
          first_at: int(row, "first_at"),
          last_at: int(row, "last_at"),
        };
  }

  /** The tool's kept disagreements, newest first, at most `limit`. */
  disagreements(tool: string, limit: number): Disagreement[] {
    return all(
      this.sql,
      "SELECT * FROM tool_shadow_disagreements WHERE tool = ? ORDER BY id DESC LIMIT ?",
      tool,
      limit,
    ).map(disagreementOf);
  }
}
