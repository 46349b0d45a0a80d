/**
 * Reading an audit export offline: NDJSON read in chunks and split into lines, every entry line
 * checked (strict JSON, entry shape, canonical bytes, sequence, hash chain) and hashed into an
 * in-memory Merkle tree, and the last line taken as the signed checkpoint.
 * @module
 */
import { entryDigest, entryLine, GENESIS_SHA256, leafHash, MerkleTree, type ChainEntry } from "../core/audit";
import { canonicalJson, PyFloat, readJson, type Json, type JsonObject } from "../core/json";
import { err, ok, type Result } from "../core/result";

/** The longest line accepted (an entry or the checkpoint line). */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;

/** How often (in entries) a progress line is written while reading. */
export const PROGRESS_EVERY = 10_000;

/** What a read export holds: the tree of its entry lines, what is wrong with them, and its checkpoint. */
export interface ExportLog {
  readonly tree: MerkleTree;
  /** One text per finding, in line order, each naming its entry ("entry 17 (line 17): …"). */
  readonly findings: string[];
  /** The signed note of the last line. */
  readonly checkpoint: string;
}

const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const HEX64 = /^[0-9a-f]{64}$/;
const ENTRY_KEYS = "at,entry_sha256,kind,prev_sha256,record,seq";

function concat(parts: Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/**
 * Splits chunks into lines without their "\n" (a last line without one is a line too). Yields
 * null for a line longer than {@link MAX_LINE_BYTES}, whose bytes are not kept.
 */
export function* splitLines(chunks: Iterable<Uint8Array>): Generator<Uint8Array | null> {
  let carry: Uint8Array[] = [];
  let carried = 0;
  let tooLong = false;
  for (const chunk of chunks) {
    let start = 0;
    for (let newline = chunk.indexOf(0x0a); newline >= 0; newline = chunk.indexOf(0x0a, start)) {
      const piece = chunk.subarray(start, newline);
      start = newline + 1;
      if (tooLong || carried + piece.length > MAX_LINE_BYTES) yield null;
      else yield carried === 0 ? piece : concat([...carry, piece], carried + piece.length);
      carry = [];
      carried = 0;
      tooLong = false;
    }
    const rest = chunk.subarray(start);
    if (rest.length === 0 || tooLong) continue;
    if (carried + rest.length > MAX_LINE_BYTES) {
      tooLong = true;
      carry = [];
      carried = 0;
    } else {
      carry.push(rest);
      carried += rest.length;
    }
  }
  if (tooLong) yield null;
  else if (carried > 0) yield concat(carry, carried);
}

function isObject(value: Json): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof PyFloat);
}

/** The entry a parsed line holds, or what is wrong with its shape. */
function entryOf(value: Json): ChainEntry | string {
  if (!isObject(value)) return "not a JSON object";
  const keys = Object.keys(value).sort().join(",");
  if (keys !== ENTRY_KEYS) return `its fields are {${keys}}, expected {${ENTRY_KEYS}}`;
  const { seq, kind, at, record, prev_sha256, entry_sha256 } = value;
  if (typeof seq !== "number" || !Number.isSafeInteger(seq) || seq < 1) return "seq is not a positive integer";
  if (typeof kind !== "string" || kind === "") return "kind is not a non-empty string";
  if (typeof at !== "number" || !Number.isSafeInteger(at)) return "at is not an integer";
  if (typeof prev_sha256 !== "string" || !HEX64.test(prev_sha256)) return "prev_sha256 is not 64 lowercase hex digits";
  if (typeof entry_sha256 !== "string" || !HEX64.test(entry_sha256))
    return "entry_sha256 is not 64 lowercase hex digits";
  let recordText: string;
  try {
    recordText = canonicalJson(record);
  } catch {
    return "record is outside the canonical JSON domain";
  }
  return { seq, kind, at, record: recordText, prev_sha256, entry_sha256 };
}

/** Checks entry lines one after another: each against itself, its line number and the one before. */
class EntryChecker {
  /** The previous entry's stored digest; undefined after a line that held no readable entry. */
  private prev: string | undefined = GENESIS_SHA256;

  constructor(private readonly findings: string[]) {}

  check(line: number, bytes: Uint8Array): void {
    const prev = this.prev;
    this.prev = undefined;
    let text: string;
    try {
      text = decoder.decode(bytes);
    } catch {
      return this.found(`line ${line}`, "not valid UTF-8");
    }
    const read = readJson(text, { maxBytes: MAX_LINE_BYTES, maxDepth: 40 });
    if (!read.ok) return this.found(`line ${line}`, `not valid JSON: ${read.error.message}`);
    const entry = entryOf(read.value);
    if (typeof entry === "string") return this.found(`line ${line}`, `not an audit entry: ${entry}`);
    const name = `entry ${entry.seq} (line ${line})`;
    this.prev = entry.entry_sha256;
    if (entry.seq !== line)
      this.found(name, `sequence number ${entry.seq} where ${line} was expected (an entry is missing, added or moved)`);
    if (entryLine(entry) !== text)
      this.found(name, "the line is not the canonical form of its entry (bytes were added, removed or reordered)");
    if (prev !== undefined && entry.prev_sha256 !== prev)
      this.found(name, `prev_sha256 does not link to the entry on line ${line - 1}`);
    if (entryDigest(entry.seq, entry.kind, entry.at, entry.record, entry.prev_sha256) !== entry.entry_sha256) {
      this.found(name, "entry_sha256 does not match the entry's contents (the entry was changed)");
    }
  }

  private found(name: string, what: string): void {
    this.findings.push(`${name}: ${what}`);
  }
}

/** The signed note of the checkpoint line `{"checkpoint":"…"}`, or undefined when the line is not one. */
function checkpointOf(bytes: Uint8Array): string | undefined {
  const read = readJson(bytes, { maxBytes: MAX_LINE_BYTES });
  if (!read.ok || !isObject(read.value)) return undefined;
  const { checkpoint } = read.value;
  return Object.keys(read.value).length === 1 && typeof checkpoint === "string" ? checkpoint : undefined;
}

export interface ReadOptions {
  /** Check every entry line (verify); without it, lines are only hashed into the tree (prove). */
  readonly check: boolean;
  /** Called after every {@link PROGRESS_EVERY} entries with the count so far. */
  readonly progress?: (entries: number) => void;
}

/**
 * Reads an export: every line but the last is an entry, the last is the checkpoint line. Fails
 * (bad input, a message) on an unreadable file, an over-long line or a missing checkpoint line;
 * everything wrong with the entries themselves is a finding.
 */
export function readExport(chunks: Iterable<Uint8Array>, options: ReadOptions): Result<ExportLog, string> {
  const tree = new MerkleTree();
  const findings: string[] = [];
  const checker = new EntryChecker(findings);
  let pending: Uint8Array | undefined;
  let line = 0;
  try {
    for (const next of splitLines(chunks)) {
      line++;
      if (next === null) return err(`line ${line} is longer than ${MAX_LINE_BYTES} bytes: not an audit export`);
      if (pending !== undefined) {
        tree.append(leafHash(pending));
        if (options.check) checker.check(line - 1, pending);
        if ((line - 1) % PROGRESS_EVERY === 0) options.progress?.(line - 1);
      }
      pending = next;
    }
  } catch (caught) {
    return err(`cannot read the export (${reasonOf(caught)})`);
  }
  if (pending === undefined) return err("the export is empty");
  const checkpoint = checkpointOf(pending);
  if (checkpoint === undefined)
    return err(`the last line (line ${line}) is not the checkpoint line {"checkpoint":"…"}: not an audit export`);
  return ok({ tree, findings, checkpoint });
}

/** A short, secret-free reason for a failed read: the system error code, or the message. */
export function reasonOf(caught: unknown): string {
  if (caught instanceof Error && "code" in caught && typeof caught.code === "string") return caught.code;
  return caught instanceof Error ? caught.message : String(caught);
}
