/**
 * Reading a fixture from bytes: size cap, strict JSON (no BOM, no duplicates, bounded depth,
 * finite numbers, JSON domain), then the zod contract. Every refusal is a coded value.
 * @module
 */
import { readJson } from "../../core/json";
import { MAX_FIXTURE_BYTES, MAX_JSON_DEPTH } from "./constants";
import { parseToolCasesFixture, type ToolCasesFixture } from "./fixture-contract";

/** Result of {@link loadToolCasesFixture}. */
export type FixtureLoadResult =
  | { readonly ok: true; readonly fixture: ToolCasesFixture }
  | {
      readonly ok: false;
      readonly error: {
        readonly code: "FIXTURE_TOO_LARGE" | "FIXTURE_NOT_JSON" | "FIXTURE_INVALID";
        readonly message: string;
      };
    };

/** Reads and validates a `tool-cases-v2` fixture from its raw bytes. */
export function loadToolCasesFixture(bytes: Uint8Array): FixtureLoadResult {
  if (bytes.length > MAX_FIXTURE_BYTES) {
    return {
      ok: false,
      error: {
        code: "FIXTURE_TOO_LARGE",
        message: `fixture exceeds ${MAX_FIXTURE_BYTES} bytes (it has ${bytes.length})`,
      },
    };
  }
  const read = readJson(bytes, { maxBytes: MAX_FIXTURE_BYTES, maxDepth: MAX_JSON_DEPTH });
  if (!read.ok) {
    const { code, message: text, path } = read.error;
    const where = path !== undefined && !text.includes(path) ? ` at ${path}` : "";
    const message = `fixture is not strict JSON (${code}): ${text}${where}`;
    return { ok: false, error: { code: "FIXTURE_NOT_JSON", message } };
  }
  const parsed = parseToolCasesFixture(read.value);
  return parsed.ok ? parsed : { ok: false, error: { code: "FIXTURE_INVALID", message: parsed.error.message } };
}
