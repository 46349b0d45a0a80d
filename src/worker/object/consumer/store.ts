import { canonicalJson, readJson } from "../../../core/json";
import type { Migration } from "../migrations";
import { one, run, STORED_JSON, text } from "../sql";

/** The consumer plane's table (part of schema v1): the one configuration row. */
export const CONSUMER_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    sql: `
  CREATE TABLE consumer (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    name TEXT NOT NULL,
    tools TEXT NOT NULL,
    approver_subjects TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );`,
  },
];

/** A consumer's stored configuration. */
export interface ConsumerRecord {
  name: string;
  tools: string[];
  approverSubjects: string[];
}

function stringArray(json: string): string[] {
  const parsed = readJson(json, STORED_JSON);
  if (!parsed.ok || !Array.isArray(parsed.value) || !parsed.value.every((v) => typeof v === "string")) {
    throw new Error("stored consumer list is not a string array");
  }
  return parsed.value as string[];
}

/** Reads the consumer row; `undefined` until an admin has created the consumer. */
export function loadConsumer(sql: SqlStorage): ConsumerRecord | undefined {
  const row = one(sql, "SELECT name, tools, approver_subjects FROM consumer WHERE id = 1");
  if (row === undefined) return undefined;
  return { name: text(row, "name"), tools: stringArray(text(row, "tools")), approverSubjects: stringArray(text(row, "approver_subjects")) };
}

/** Creates or replaces the consumer row; answers whether it was created. */
export function saveConsumer(sql: SqlStorage, record: ConsumerRecord, now: number): boolean {
  const existed = one(sql, "SELECT 1 AS present FROM consumer WHERE id = 1") !== undefined;
  const tools = canonicalJson([...new Set(record.tools)].sort());
  const approvers = canonicalJson([...new Set(record.approverSubjects)].sort());
  if (existed) {
    run(sql, "UPDATE consumer SET tools = ?, approver_subjects = ?, updated_at = ? WHERE id = 1", tools, approvers, now);
  } else {
    run(
      sql,
      "INSERT INTO consumer (id, name, tools, approver_subjects, created_at, updated_at) VALUES (1, ?, ?, ?, ?, ?)",
      record.name,
      tools,
      approvers,
      now,
      now,
    );
  }
  return !existed;
}
