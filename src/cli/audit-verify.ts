/**
 * `toolgate audit verify`: checks an audit export offline with nothing but verifier keys (and,
 * optionally, checkpoints saved earlier) and prints one report.
 * @module
 */
import {
  encodeBase64,
  openNote,
  parseCheckpoint,
  parseVerifierKey,
  sameBytes,
  type NoteCode,
  type ParsedCheckpoint,
  type Verifier,
} from "../core/audit";
import { readJson } from "../core/json";
import { readExport, reasonOf, type ExportLog } from "./audit-export";
import type { CliIo } from "./io";

/** What `audit verify` was asked to check. */
export interface VerifyArgs {
  readonly exportFile: string;
  readonly keys: string[];
  readonly checkpoints: string[];
}

/** Entry findings listed one by one before the rest is counted. */
const LISTED_ENTRY_FINDINGS = 100;

const ORIGIN = /^(.+)\/consumers\/([^/]+)$/;
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

const SIGNATURE_PROBLEMS: Record<NoteCode, string> = {
  note_unverified: "signature: no signature by a given key (signed by another key, or the key was not given)",
  note_signature_invalid: "signature: a given key's signature does not verify (the note was altered)",
  note_malformed: "signature: not a signed note (C2SP signed-note)",
};

/** A checkpoint read from a signed note, with who signed it (none when no given key verifies it). */
interface SignedCheckpoint {
  readonly checkpoint: ParsedCheckpoint | undefined;
  readonly signedBy: string[];
  readonly signatureProblem: string | undefined;
}

/** Reads a signed note's checkpoint even when no key verifies it, so the report can still compare it. */
function readSigned(note: string, verifiers: Verifier[]): SignedCheckpoint {
  const split = note.lastIndexOf("\n\n");
  const parsed = split < 0 ? undefined : parseCheckpoint(note.slice(0, split + 1));
  const checkpoint = parsed?.ok === true ? parsed.value : undefined;
  const opened = openNote(note, verifiers);
  if (opened.ok) return { checkpoint, signedBy: opened.value.verifiedBy, signatureProblem: undefined };
  return { checkpoint, signedBy: [], signatureProblem: SIGNATURE_PROBLEMS[opened.error] };
}

/** A saved checkpoint file: a signed note, or a JSON object whose `checkpoint` field is one. */
function readSavedNote(io: CliIo, file: string): string {
  const text = decoder.decode(io.readFile(file));
  if (text.startsWith("{")) {
    const read = readJson(text);
    if (read.ok && typeof read.value === "object" && read.value !== null && "checkpoint" in read.value) {
      const { checkpoint } = read.value;
      if (typeof checkpoint === "string") return checkpoint;
    }
    throw new Error("a JSON file without a string `checkpoint` field");
  }
  // A note saved with an extra newline (`jq -r`, an editor) is the same note.
  return `${text.replace(/\n+$/, "")}\n`;
}

/** Compares one saved checkpoint with the export; answers its report line and adds its findings. */
function checkSaved(
  file: string,
  note: string,
  log: ExportLog,
  origin: string | undefined,
  verifiers: Verifier[],
  findings: string[],
): string {
  const saved = readSigned(note, verifiers);
  const n = log.tree.size;
  const found = (what: string): string => {
    findings.push(`saved checkpoint ${file}: ${what}`);
    return `FAILED: ${what}`;
  };
  const cp = saved.checkpoint;
  if (cp === undefined) return found("not a checkpoint (C2SP tlog-checkpoint) note");
  if (saved.signatureProblem !== undefined) return found(saved.signatureProblem);
  if (origin !== undefined && cp.origin !== origin) return found(`it belongs to another log (origin ${cp.origin})`);
  if (cp.size > n) return found(`truncated: the export has ${n} entries, a saved checkpoint commits to ${cp.size}`);
  if (!sameBytes(log.tree.root(cp.size), cp.root)) {
    const scope = cp.size === n ? "the export's" : `the first ${cp.size} of the export's`;
    return found(
      `rewritten: the root of ${scope} entries is ${encodeBase64(log.tree.root(cp.size))}, the saved checkpoint's is ${encodeBase64(cp.root)}`,
    );
  }
  return `consistent (size ${cp.size}, signed by ${saved.signedBy.join(", ")})`;
}

/** Checks the export's own checkpoint against its entries; answers the report lines. */
function checkExportCheckpoint(
  log: ExportLog,
  verifiers: Verifier[],
  findings: string[],
): { lines: string[]; origin: string | undefined } {
  const own = readSigned(log.checkpoint, verifiers);
  const n = log.tree.size;
  const cp = own.checkpoint;
  if (cp === undefined) {
    findings.push("checkpoint: the last line's note is not a checkpoint (C2SP tlog-checkpoint)");
    return { lines: ["checkpoint:  malformed"], origin: undefined };
  }
  if (own.signatureProblem !== undefined) findings.push(`checkpoint: ${own.signatureProblem}`);
  if (!ORIGIN.test(cp.origin))
    findings.push(`checkpoint: its origin ${JSON.stringify(cp.origin)} is not <name>/consumers/<consumer>`);
  if (cp.size !== n) findings.push(`checkpoint: it commits to ${cp.size} entries, the export has ${n}`);
  else if (!sameBytes(log.tree.root(), cp.root)) {
    findings.push(
      `checkpoint: the root of the export's entries is ${encodeBase64(log.tree.root())}, the checkpoint's is ${encodeBase64(cp.root)}`,
    );
  }
  const lines = [
    `checkpoint:  ${cp.origin}, size ${cp.size}, root ${encodeBase64(cp.root)}`,
    `signed by:   ${own.signedBy.length > 0 ? own.signedBy.join(", ") : "(no given key)"}`,
  ];
  return { lines, origin: cp.origin };
}

/**
 * What an ok without `--checkpoint` does not prove: a log rewritten and re-signed before its
 * latest checkpoint is self-consistent (only an earlier checkpoint, or the witness's, shows it).
 */
export const NO_SAVED_CHECKPOINT =
  "toolgate audit verify: warning: no earlier checkpoint given (--checkpoint): this proves the export's internal consistency and its checkpoint's signature only, " +
  "not that the log was not rewritten or truncated before that checkpoint; pass checkpoints saved earlier (or the witness bucket's copies) to prove that.\n";

function badInput(io: CliIo, message: string): number {
  io.stderr(`toolgate audit verify: ${message}\n`);
  return 2;
}

/** Runs the checks and prints the report; exit 0 all good, 1 a finding, 2 bad input. */
export function verifyExport(args: VerifyArgs, io: CliIo): number {
  const verifiers: Verifier[] = [];
  for (const [i, key] of args.keys.entries()) {
    const parsed = parseVerifierKey(key);
    // A signer key passed by mistake is never echoed.
    if (key.startsWith("PRIVATE+KEY+"))
      return badInput(io, `--key ${i + 1} is a signer (private) key; pass its verifier key`);
    if (!parsed.ok)
      return badInput(io, `--key ${i + 1} is not a verifier key <name>+<8 hex>+<base64> (${parsed.error})`);
    verifiers.push(parsed.value);
  }
  const saved: Array<{ file: string; note: string }> = [];
  for (const file of args.checkpoints) {
    try {
      saved.push({ file, note: readSavedNote(io, file) });
    } catch (caught) {
      return badInput(io, `cannot read saved checkpoint ${file} (${reasonOf(caught)})`);
    }
  }
  let chunks: Iterable<Uint8Array>;
  try {
    chunks = io.readChunks?.(args.exportFile) ?? [io.readFile(args.exportFile)];
  } catch (caught) {
    return badInput(io, `cannot read ${args.exportFile} (${reasonOf(caught)})`);
  }
  const progress = (count: number): void => io.stderr(`toolgate audit verify: ${count} entries read\n`);
  const read = readExport(chunks, { check: true, progress });
  if (!read.ok) return badInput(io, `${args.exportFile}: ${read.error}`);
  const log = read.value;
  const entryFindings = log.findings;
  const findings: string[] = [];
  const own = checkExportCheckpoint(log, verifiers, findings);
  const savedLines = saved.map(
    ({ file, note }) => `saved:       ${file}: ${checkSaved(file, note, log, own.origin, verifiers, findings)}`,
  );
  const listed = entryFindings.slice(0, LISTED_ENTRY_FINDINGS);
  if (entryFindings.length > listed.length)
    listed.push(`… and ${entryFindings.length - listed.length} more entry findings`);
  const all = [...listed, ...findings];
  const total = entryFindings.length + findings.length;
  const report = [
    `export:      ${args.exportFile}`,
    `entries:     ${log.tree.size}`,
    `tree root:   ${encodeBase64(log.tree.root())}`,
    ...own.lines,
    ...savedLines,
    total === 0 ? "findings:    none" : `findings:    ${total}`,
    ...all.map((finding) => `  ${finding}`),
    total === 0 ? "result:      ok" : "result:      FAILED",
  ];
  io.stdout(`${report.join("\n")}\n`);
  if (total === 0 && saved.length === 0) io.stderr(NO_SAVED_CHECKPOINT);
  return total === 0 ? 0 : 1;
}
