/**
 * Capability admission: only `browser.*` and `consumer-state.*` capabilities exist, and
 * shell, filesystem, MCP and `fs` namespaces are refused even when split by separators.
 * @module
 */
import type { Validation } from "./validation-error";

const SEPARATORS = new Set([".", ":", "/", "-", "_"]);

// Rust's `to_ascii_lowercase`: only A–Z change, so non-ASCII text is left as is.
function asciiLowercase(value: string): string {
  return value.replace(/[A-Z]/g, (c) => c.toLowerCase());
}

/** The seed's forbidden-namespace test on an already lower-cased id. */
export function hasForbiddenCapabilityNamespace(value: string): boolean {
  let compact = "";
  for (const character of value) if (!SEPARATORS.has(character)) compact += character;
  if (["shell", "filesystem", "mcp"].some((forbidden) => compact.includes(forbidden))) return true;

  const segments: string[] = [];
  let current = "";
  for (const character of value) {
    if (SEPARATORS.has(character)) {
      if (current !== "") segments.push(current);
      current = "";
    } else current += character;
  }
  if (current !== "") segments.push(current);
  // From every start segment, concatenate while the accumulation is shorter than two
  // bytes: catches a lone `fs` segment and `f` followed by `s` across separators.
  for (let start = 0; start < segments.length; start++) {
    let candidate = "";
    for (let i = start; i < segments.length; i++) {
      if (new TextEncoder().encode(candidate).length >= 2) break;
      candidate += segments[i] ?? "";
      if (candidate === "fs") return true;
    }
  }
  return false;
}

/** Capability classes and the id prefix each one requires. */
export const CAPABILITY_CLASS_PREFIX = {
  browser: "browser.",
  "consumer-state": "consumer-state.",
} as const;

/** `CapabilityDescriptor::validate_admission`. */
export function validateAdmission(
  capabilityId: string,
  capabilityClass: keyof typeof CAPABILITY_CLASS_PREFIX,
): Validation {
  const normalized = asciiLowercase(capabilityId);
  const forbidden = hasForbiddenCapabilityNamespace(normalized);
  if (forbidden || !normalized.startsWith(CAPABILITY_CLASS_PREFIX[capabilityClass])) {
    return { "capability-outside-admission": { capability_id: capabilityId } };
  }
  return null;
}
