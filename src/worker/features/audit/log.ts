/**
 * The verifiable side of a consumer's audit log: signed checkpoints of its Merkle tree (C2SP
 * `tlog-checkpoint` in a C2SP `signed-note`), RFC 9162 inclusion and consistency proofs, the
 * export's pages, and the witness copy of every checkpoint in R2. Signing runs on demand (a
 * checkpoint, proof or export request when the tree grew) or from the object's alarm, never on
 * a tool call's path. docs/audit.md describes every format.
 * @module
 */
import {
  consistencyProof,
  encodeBase64,
  formatCheckpoint,
  inclusionProof,
  rootHash,
  signNote,
  type Signer,
  type Verifier,
} from "../../../core/audit";
import { canonicalJson } from "../../../core/json";
import { problem } from "../../http/problem";
import { fail, ok, type Outcome } from "../../result";
import { inconsistency, newestWitnessed, openHead, type Inconsistency, type SignedHead } from "./consistency";
import { readEntries } from "./entries";
import type { AuditChain } from "./service";
import type { StoredCheckpoint } from "./store";
import { overTree } from "./tiles";

/** Lines one export page carries at most (one RPC call of the export's stream). */
export const EXPORT_PAGE_LINES = 1000;

/** What the log uses of its object. */
export interface AuditLogDeps {
  readonly chain: AuditChain;
  /** The checkpoint signer (`TOOLGATE_AUDIT_SIGNING_KEY`), or null when unset. */
  readonly signer: Signer | null;
  /** The published verifier keys (the current key's, then the previous one's): what opens a witnessed note. */
  verifiers(): readonly Verifier[];
  /** The consumer whose log this is (the witness key, and the checkpoint origin's last part). */
  readonly consumer: string;
  /** The checkpoint origin, `<log name>/consumers/<consumer>`. */
  readonly origin: string;
  readonly witness: R2Bucket | undefined;
  /** A checkpoint of `size` is in the witness bucket (the archive may move up to it). */
  witnessed?(size: number): void;
  /** Unix seconds (`signed_at`). */
  now(): number;
  transaction<T>(step: () => T): T;
}

const NOT_CONFIGURED = problem(
  "AUDIT_SIGNING_NOT_CONFIGURED",
  "This deployment sets no TOOLGATE_AUDIT_SIGNING_KEY: checkpoints are not signed.",
);

/** The witness object key of a checkpoint: sizes zero-padded to 20 digits sort as numbers. */
export function witnessKey(consumer: string, size: number): string {
  return `consumers/${consumer}/checkpoints/${String(size).padStart(20, "0")}`;
}

/**
 * Writes a checkpoint to the witness bucket unless an object of its key exists (never
 * overwritten). Without the binding nothing is written; a failed write is logged (the note is
 * public, but only the key is named) and retried with a later checkpoint.
 */
export async function witness(deps: AuditLogDeps, checkpoint: StoredCheckpoint): Promise<void> {
  const bucket = deps.witness;
  if (bucket === undefined) return;
  const key = witnessKey(deps.consumer, checkpoint.size);
  try {
    if ((await bucket.head(key)) === null)
      await bucket.put(key, checkpoint.note, { httpMetadata: { contentType: "text/plain; charset=utf-8" } });
    deps.witnessed?.(checkpoint.size);
  } catch (error) {
    console.error(`toolgate: audit witness write of ${key} failed: ${error instanceof Error ? error.name : "error"}`);
  }
}

const inconsistent = (found: Inconsistency) =>
  problem(
    "AUDIT_LOG_INCONSISTENT",
    found.reason === "unsigned"
      ? `The stored checkpoint of size ${found.checkpointSize} does not open with a published verifier key: the log's storage was rewritten, and no checkpoint is signed. The operator is alerted.`
      : `The stored log of ${found.treeSize} entries does not extend the ${found.source} checkpoint of size ${found.checkpointSize}: entries were rewritten or removed, and no checkpoint is signed. The operator is alerted.`,
  );

/** The witness bucket's newest checkpoint of size `from` or more (null: none, or no bucket). */
async function witnessedHead(deps: AuditLogDeps, from: number): Promise<SignedHead | null> {
  if (deps.witness === undefined) return null;
  const startAfter = from === 0 ? undefined : witnessKey(deps.consumer, from - 1);
  try {
    return await newestWitnessed(deps.witness, `consumers/${deps.consumer}/checkpoints/`, startAfter, (note) =>
      opened(deps, note, "witness"),
    );
  } catch (error) {
    // As a failed witness write: logged, and the stored checkpoint alone is checked this time.
    console.error(`toolgate: audit witness read failed: ${error instanceof Error ? error.name : "error"}`);
    return null;
  }
}

/**
 * The checkpoint note this object last signed or opened, per object, and the tree head it
 * carries (null: it does not open as this log's). The same text always opens the same way, so
 * a note is opened once, not at every signing: the stored checkpoint and its witness copy are
 * usually the note the gate signed itself one period before.
 */
const knownNotes = new WeakMap<AuditChain, { note: string; head: { size: number; root: Uint8Array } | null }>();

/** A note's signed tree head as {@link openHead} answers it, opened only when it is not the known note. */
function opened(deps: AuditLogDeps, note: string, source: SignedHead["source"]): SignedHead | null {
  const known = knownNotes.get(deps.chain);
  if (known !== undefined && known.note === note)
    return known.head === null ? null : { size: known.head.size, root: known.head.root, source };
  const head = openHead(note, deps.origin, deps.verifiers(), source);
  knownNotes.set(deps.chain, { note, head: head === null ? null : { size: head.size, root: head.root } });
  return head;
}

/**
 * The signed tree head of a stored checkpoint: its note's own size and root (never the row's
 * columns), when a published verifier key opens it as this log's; null when it does not (the
 * row was not written by the gate).
 */
function storedHead(deps: AuditLogDeps, stored: StoredCheckpoint): SignedHead | null {
  return opened(deps, stored.note, "stored");
}

/**
 * Signs a checkpoint of the whole tree unless the latest one has its size; inside one
 * transaction. The latest stored checkpoint counts only by its opened note; the tree must
 * extend it and `witnessed` (the witness bucket's newest): a stored note that does not open, or
 * a tree that does not extend a head, is refused, the alarm raised, nothing signed or served.
 */
function signLatest(
  deps: AuditLogDeps,
  signer: Signer,
  witnessed: SignedHead | null,
): { checkpoint: StoredCheckpoint; fresh: boolean } | Inconsistency {
  return deps.transaction(() => {
    const { chain } = deps;
    const size = chain.tree.size();
    const latest = chain.store.latestCheckpoint();
    const stored = latest === undefined ? null : storedHead(deps, latest);
    if (latest !== undefined && stored === null)
      return { source: "stored", checkpointSize: latest.size, treeSize: size, reason: "unsigned" };
    const heads = [stored, witnessed].filter((head): head is SignedHead => head !== null);
    for (const head of heads) {
      const found = inconsistency(chain.tree, size, head);
      if (found !== null) return found;
    }
    // The stored note has the tree's size and (checked above) its root: it is the latest.
    if (latest !== undefined && stored !== null && stored.size === size)
      return { checkpoint: { ...latest, size, root: stored.root }, fresh: false };
    const root = rootHash(chain.tree, size);
    const note = signNote(formatCheckpoint({ origin: deps.origin, size, root }), [signer]);
    const checkpoint = { size, root, note, signedAt: deps.now() };
    // Signed here, of this log's origin, size and root: the head it carries is known without opening it.
    knownNotes.set(chain, { note, head: { size, root } });
    chain.store.putCheckpoint(checkpoint);
    chain.signed(size);
    return { checkpoint, fresh: true };
  });
}

/**
 * Signs a checkpoint if the tree grew since the latest one, once the tree is shown to extend the
 * signed heads; a new one goes to the witness. An inconsistent tree raises the alarm. The witness
 * is listed from the stored note's own size: every signed head at or above it is listed, and the
 * stored note (checked) already holds every smaller one as its prefix.
 */
async function signChecked(deps: AuditLogDeps, signer: Signer): Promise<Outcome<StoredCheckpoint>> {
  const { size, latest } = deps.transaction(() => ({
    size: deps.chain.tree.size(),
    latest: deps.chain.store.latestCheckpoint(),
  }));
  const stored = latest === undefined ? 0 : (storedHead(deps, latest)?.size ?? null);
  const witnessed = stored !== null && size > stored ? await witnessedHead(deps, stored) : null;
  const signed = signLatest(deps, signer, witnessed);
  if (!("checkpoint" in signed)) {
    deps.chain.alarm.raise(deps.consumer, signed, deps.now());
    return fail(inconsistent(signed));
  }
  if (signed.fresh) await witness(deps, signed.checkpoint);
  return ok(signed.checkpoint);
}

/** The latest checkpoint, signing one first if the tree grew since (see {@link signChecked}). */
export async function checkpoint(deps: AuditLogDeps): Promise<Outcome<StoredCheckpoint>> {
  if (deps.signer === null) return fail(NOT_CONFIGURED);
  return signChecked(deps, deps.signer);
}

/** `GET …/audit/checkpoint`: `{ size, root, checkpoint }`. */
export async function checkpointView(deps: AuditLogDeps): Promise<Outcome<string>> {
  const latest = await checkpoint(deps);
  if (!latest.ok) return latest;
  return ok(
    canonicalJson({ size: latest.value.size, root: encodeBase64(latest.value.root), checkpoint: latest.value.note }),
  );
}

/**
 * The periodic checkpoint (the object's alarm): signs when at least `every` entries followed the
 * latest checkpoint; idempotent (a second run finds the checkpoint signed).
 */
export async function periodicCheckpoint(deps: AuditLogDeps, every: number): Promise<void> {
  const signer = deps.signer;
  deps.chain.signed(null);
  if (signer === null) return;
  const due = deps.transaction(
    () => deps.chain.tree.size() - (deps.chain.store.latestCheckpoint()?.size ?? 0) >= every,
  );
  if (due) await signChecked(deps, signer);
}

const beyond = (what: string, value: number, size: number) =>
  fail(problem("INVALID_REQUEST", `${what} ${value} is beyond the log's tree (${size} entries).`));

/** `GET …/audit/proof/inclusion`: entry `seq` in the tree of `size` (default: the latest checkpoint's). */
export async function inclusion(deps: AuditLogDeps, seq: number, size: number | undefined): Promise<Outcome<string>> {
  let treeSize = size;
  if (treeSize === undefined) {
    const latest = deps.signer === null ? undefined : await checkpoint(deps);
    if (latest !== undefined && !latest.ok) return latest;
    treeSize = latest === undefined ? deps.chain.tree.size() : latest.value.size;
  }
  const total = deps.chain.tree.size();
  if (treeSize > total) return beyond("size", treeSize, total);
  if (seq > treeSize)
    return fail(
      problem("INVALID_REQUEST", `seq ${seq} is not in a tree of size ${treeSize} (seq must be at most size).`),
    );
  const ofSize = treeSize;
  const { proof, leaf } = await overTree(deps.chain.store, deps.chain.tiles, (tree) => ({
    proof: inclusionProof(tree, seq - 1, ofSize),
    leaf: tree.node(0, seq - 1),
  }));
  return ok(
    canonicalJson({
      seq,
      leaf_index: seq - 1,
      tree_size: treeSize,
      leaf_hash: encodeBase64(leaf),
      proof: proof.map(encodeBase64),
    }),
  );
}

/** `GET …/audit/proof/consistency`: the tree of `from` entries is a prefix of the tree of `to`. */
export async function consistency(deps: AuditLogDeps, from: number, to: number): Promise<Outcome<string>> {
  const total = deps.chain.tree.size();
  if (to > total) return beyond("to", to, total);
  if (from > to) return fail(problem("INVALID_REQUEST", `from ${from} is larger than to ${to}.`));
  const proof = await overTree(deps.chain.store, deps.chain.tiles, (tree) => consistencyProof(tree, from, to));
  return ok(canonicalJson({ from, to, proof: proof.map(encodeBase64) }));
}

/**
 * One page of the export: the lines of the entries after `after`, up to entry `until`, each with
 * its newline; archived entries are their tiles' bytes, the same bytes their rows gave.
 */
export async function exportPage(deps: AuditLogDeps, after: number, until: number): Promise<string> {
  const count = Math.max(0, Math.min(EXPORT_PAGE_LINES, until - after));
  if (count === 0) return "";
  return (await readEntries(deps.chain.store, deps.chain.tiles, after, count)).map((read) => `${read.line}\n`).join("");
}
