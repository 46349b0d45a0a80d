import type * as z from "zod";
import { readJson } from "../../core/json";
import { U64_MAX } from "../../core/capability";
import { describeIssues, readCappedBytes } from "../body";
import { problem } from "../problem";
import { fail, ok, type Outcome } from "../result";

/** Cap on a capability body: payloads and inline results are byte arrays (≈4 characters a byte). */
export const MAX_CAPABILITY_BODY_BYTES = 1 << 20;

/**
 * Reads a capability body: media type, size cap, no BOM, the strict reader in bigint mode
 * without the tool-call value domain (byte arrays exceed 1,024 entries), then one contract.
 */
export async function readWireBody<S extends z.ZodType>(request: Request, schema: S): Promise<Outcome<z.output<S>>> {
  const type = request.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase();
  if (type !== "application/json") return fail(problem("UNSUPPORTED_MEDIA_TYPE", "Send the body as application/json."));
  const bytes = await readCappedBytes(request, MAX_CAPABILITY_BODY_BYTES);
  if (!bytes.ok) return bytes;
  const raw = bytes.value;
  if (raw.length >= 3 && raw[0] === 0xef && raw[1] === 0xbb && raw[2] === 0xbf) {
    return fail(problem("INVALID_JSON", "The body starts with a byte order mark."));
  }
  const read = readJson(raw, { integers: "bigint", domain: false, maxBytes: MAX_CAPABILITY_BODY_BYTES });
  if (!read.ok) return fail(problem("INVALID_JSON", `${read.error.code}: ${read.error.message}`));
  const parsed = schema.safeParse(read.value);
  if (!parsed.success) return fail(problem("INVALID_REQUEST", describeIssues(parsed.error)));
  return ok(parsed.data);
}

/** A u64 in decimal (path segment or query value), or `null` if it is not one. */
export function parseU64(text: string | undefined): bigint | null {
  if (text === undefined || !/^(0|[1-9][0-9]{0,19})$/.test(text)) return null;
  const value = BigInt(text);
  return value <= U64_MAX ? value : null;
}
