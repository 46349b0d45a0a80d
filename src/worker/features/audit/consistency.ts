/**
 * What a new checkpoint must extend before it is signed: the latest signed checkpoint stored
 * with the log, and the newest checkpoint in the witness bucket (the gate's write-once copy in
 * R2, which a rewrite of the object's SQLite does not reach). The tree about to be signed must
 * hold each of them as its prefix, shown by an RFC 9162 consistency proof read from the tree's
 * own nodes (O(log n) of them); a tree that does not is a rewritten log and is never signed.
 * @module
 */
import {
  consistencyProof,
  openNote,
  parseCheckpoint,
  rootHash,
  verifyConsistency,
  type NodeReader,
  type Verifier,
} from "../../../core/audit";

/** A signed tree head the next checkpoint must extend, and where it was read. */
export interface SignedHead {
  readonly size: number;
  readonly root: Uint8Array;
  readonly source: "stored" | "witness";
}

/** Why a tree does not extend a signed head (no hash, no secret: safe for a log line). */
export interface Inconsistency {
  readonly source: SignedHead["source"];
  readonly checkpointSize: number;
  readonly treeSize: number;
  /** `unsigned`: the stored checkpoint's note is not one a published key signed for this log. */
  readonly reason: "shorter" | "rewritten" | "unsigned";
}

/** Whether the first `size` leaves of `tree` hold `head` as their prefix; null when they do. */
export function inconsistency(tree: NodeReader, size: number, head: SignedHead): Inconsistency | null {
  const found = (reason: Inconsistency["reason"]): Inconsistency => ({
    source: head.source,
    checkpointSize: head.size,
    treeSize: size,
    reason,
  });
  if (head.size > size) return found("shorter");
  const proof = consistencyProof(tree, head.size, size);
  return verifyConsistency(head.size, size, proof, head.root, rootHash(tree, size)) ? null : found("rewritten");
}

/**
 * The signed tree head a note carries, when a published verifier key opens it and its checkpoint
 * is of this log's `origin`; null otherwise (a note that does not open is not the gate's).
 */
export function openHead(
  note: string,
  origin: string,
  verifiers: readonly Verifier[],
  source: SignedHead["source"],
): SignedHead | null {
  const opened = openNote(note, [...verifiers]);
  const parsed = opened.ok ? parseCheckpoint(opened.value.text) : null;
  if (parsed?.ok !== true || parsed.value.origin !== origin) return null;
  return { size: parsed.value.size, root: parsed.value.root, source };
}

/**
 * The witness bucket's newest checkpoint under `prefix` listed after the key `startAfter` (keys
 * sort by size), when one is there and `open` opens it as this log's (as {@link openHead} does;
 * a note that does not is not the gate's: it is ignored). One list call (more only when more
 * than a page of checkpoints follows) and one read.
 */
export async function newestWitnessed(
  bucket: R2Bucket,
  prefix: string,
  startAfter: string | undefined,
  open: (note: string) => SignedHead | null,
): Promise<SignedHead | null> {
  let newest: string | undefined;
  let cursor: string | undefined;
  do {
    const listed = await bucket.list({
      prefix,
      ...(startAfter === undefined ? {} : { startAfter }),
      ...(cursor === undefined ? {} : { cursor }),
    });
    newest = listed.objects[listed.objects.length - 1]?.key ?? newest;
    cursor = listed.truncated ? listed.cursor : undefined;
  } while (cursor !== undefined);
  if (newest === undefined) return null;
  const object = await bucket.get(newest);
  if (object === null) return null;
  return open(await object.text());
}

/** What an admin reads of the alarm (`GET /v1/consumers/{consumer}`, `audit_inconsistent`). */
export interface AlarmView {
  /** Signings refused since the object started. */
  readonly refusals: number;
  /** Unix seconds of the latest refusal. */
  readonly detected_at: number;
  readonly checkpoint_size: number;
  readonly tree_size: number;
  readonly against: SignedHead["source"];
}

/**
 * The alarm of a rewritten log: each refused signing writes one structured log line (sizes and
 * where the signed head was read; never a hash, key or entry) and counts, for the admin's read.
 * Kept in memory: a log that stays inconsistent raises it again at its next signing attempt.
 */
export class AuditAlarm {
  #view: AlarmView | null = null;

  raise(consumer: string, found: Inconsistency, at: number): void {
    this.#view = {
      refusals: (this.#view?.refusals ?? 0) + 1,
      detected_at: at,
      checkpoint_size: found.checkpointSize,
      tree_size: found.treeSize,
      against: found.source,
    };
    const line = {
      level: "error",
      event: "audit.log_inconsistent",
      consumer,
      against: found.source,
      reason: found.reason,
      checkpoint_size: found.checkpointSize,
      tree_size: found.treeSize,
    };
    console.error(`toolgate: ${JSON.stringify(line)}`);
  }

  view(): AlarmView | null {
    return this.#view;
  }
}
