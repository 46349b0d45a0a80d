/**
 * Redacted rendering for logs. Like the crate's Debug impls it never shows request
 * payloads, inline result bytes or opaque references: payloads become `payload_bytes`,
 * inline bytes become `byte_len`, references become `reference_bytes`.
 * @module
 */
import { utf8Length } from "./text";
import { writeWireJson } from "./wire-json";

/** Returns a copy of any capability value with payloads, result bytes and references replaced by sizes. */
export function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (value === null || typeof value !== "object") return value;
  const source = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(source)) {
    const member = source[key];
    if (key === "payload" && Array.isArray(member)) out.payload_bytes = member.length;
    else if (key === "inline" && isObject(member) && Array.isArray(member.bytes)) {
      out.inline = { ...redactRest(member, "bytes"), byte_len: member.bytes.length };
    } else if (key === "opaque-reference" && isObject(member) && typeof member.reference === "string") {
      out["opaque-reference"] = { ...redactRest(member, "reference"), reference_bytes: utf8Length(member.reference) };
    } else out[key] = redact(member);
  }
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function redactRest(member: Record<string, unknown>, omit: string): Record<string, unknown> {
  const rest: Record<string, unknown> = {};
  for (const key of Object.keys(member)) if (key !== omit) rest[key] = redact(member[key]);
  return rest;
}

/** One-line redacted JSON rendering of a capability value, safe for logs. */
export function renderRedacted(value: unknown): string {
  return writeWireJson(redact(value));
}
