import { decodeEnvelope } from "../core/wire";
import type { CliIo } from "./io";

const USAGE = "usage: toolgate envelope validate FILE...\n";

/** One report line. Keys are written in this fixed order: file, ok, code, path, message. */
interface Line {
  file: string;
  ok: boolean;
  code: string | null;
  path: string | null;
  message: string | null;
}

function check(file: string, io: CliIo): Line {
  let bytes: Uint8Array;
  try {
    bytes = io.readFile(file);
  } catch (caught) {
    // An unreadable file can never be a valid envelope; report it in the same shape.
    const reason = caught instanceof Error ? caught.message : String(caught);
    return { file, ok: false, code: "invalid_json", path: null, message: `cannot read file: ${reason}` };
  }
  const result = decodeEnvelope(bytes);
  if (result.ok) return { file, ok: true, code: null, path: null, message: null };
  return { file, ok: false, code: result.error.code, path: result.error.path, message: result.error.message };
}

/**
 * `toolgate envelope validate FILE...`: prints one JSON line per file and exits 0 when every
 * file holds a valid execution envelope v1, 2 otherwise (and 2 with usage on bad arguments).
 */
export function runEnvelope(args: string[], io: CliIo): number {
  const [sub, ...files] = args;
  if (sub !== "validate" || files.length === 0) {
    io.stderr(USAGE);
    return 2;
  }
  let allValid = true;
  for (const file of files) {
    const line = check(file, io);
    allValid &&= line.ok;
    // JSON.stringify keeps insertion order, which the Line literal fixes.
    io.stdout(
      `${JSON.stringify({ file: line.file, ok: line.ok, code: line.code, path: line.path, message: line.message })}\n`,
    );
  }
  return allValid ? 0 : 2;
}
