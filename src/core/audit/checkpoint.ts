/**
 * C2SP tlog-checkpoint bodies: the origin naming the log, the tree size and the root hash, the
 * text a signed note carries. Parsing is strict, so one checkpoint has one spelling.
 * @module
 */
import { err, ok, type Result } from "../result";
import { decodeBase64, encodeBase64 } from "./base64";

/** The tree head a checkpoint states. */
export interface Checkpoint {
  readonly origin: string;
  readonly size: number;
  readonly root: Uint8Array;
}

/** A parsed checkpoint, with any extension lines after the root. */
export interface ParsedCheckpoint extends Checkpoint {
  readonly extensions: string[];
}

/** Why a text is not a checkpoint. */
export type CheckpointCode = "checkpoint_malformed";

const DECIMAL = /^(0|[1-9][0-9]*)$/;

function validOrigin(origin: string): boolean {
  return origin.length > 0 && !origin.includes("\n");
}

/** The checkpoint body `origin\nsize\nbase64(root)\n`. Throws for an origin, size or root out of shape (a bug). */
export function formatCheckpoint(checkpoint: Checkpoint): string {
  const { origin, size, root } = checkpoint;
  if (!validOrigin(origin)) throw new RangeError("a checkpoint origin is non-empty and has no newline");
  if (!Number.isSafeInteger(size) || size < 0) throw new RangeError("a checkpoint size is a non-negative integer");
  if (root.length !== 32) throw new RangeError("a checkpoint root is 32 bytes");
  return `${origin}\n${size}\n${encodeBase64(root)}\n`;
}

/**
 * Reads a checkpoint body (a signed note's text): a non-empty origin line, a decimal size without
 * leading zeros, the standard padded base64 of a 32-byte root, then non-empty extension lines;
 * the text ends with a newline.
 */
export function parseCheckpoint(text: string): Result<ParsedCheckpoint, CheckpointCode> {
  if (!text.endsWith("\n")) return err("checkpoint_malformed");
  const lines = text.slice(0, -1).split("\n");
  const [origin, sizeText, rootText, ...extensions] = lines;
  if (origin === undefined || sizeText === undefined || rootText === undefined) return err("checkpoint_malformed");
  if (!validOrigin(origin) || !DECIMAL.test(sizeText)) return err("checkpoint_malformed");
  const size = Number(sizeText);
  if (!Number.isSafeInteger(size)) return err("checkpoint_malformed");
  const root = decodeBase64(rootText);
  if (root === null || root.length !== 32) return err("checkpoint_malformed");
  if (extensions.some((line) => line.length === 0)) return err("checkpoint_malformed");
  return ok({ origin, size, root, extensions });
}
