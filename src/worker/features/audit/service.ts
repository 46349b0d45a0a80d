import { entryDigest, GENESIS_SHA256 } from "../../../core/audit";
import { canonicalJson, readJson, type Json } from "../../../core/json";
import { bytesToHex } from "@noble/hashes/utils.js";
import { CALL_RECORDS_SCAN, MAX_CALL_RECORDS } from "../../../contracts/audit";
import { fail, ok, type Outcome } from "../../result";
import { problem } from "../../http/problem";
import type { Limits } from "../../kernel/limits";
import { STORED_JSON } from "../../kernel/sql";
import { AuditAlarm } from "./consistency";
import { pageCursor, readPageCursor, readVerifyCursor, verifyCursor, type VerifyPosition } from "./cursor";
import { readEntries } from "./entries";
import { AuditStore } from "./store";
import { TileBucket } from "./tiles";
import { AuditTree } from "./tree";
import { walkStep } from "./walk";
import { fastSha256Hex } from "../../sha256";

/**
 * Pages of `page_items` entries one `verify` call checks at most: the work of a call is bounded
 * by `page_items × VERIFY_PAGES_PER_CALL` digests (1,000 with the default limits).
 */
export const VERIFY_PAGES_PER_CALL = 10;

/** One entry of a consumer's audit chain, as served to auditors. */
export interface AuditEntry {
  seq: number;
  kind: string;
  at: number;
  record: Json;
  prev_sha256: string;
  entry_sha256: string;
}

/** Where a tool call's answer says it was recorded: the entry's sequence and its leaf hash (hex). */
export interface AuditRef {
  readonly seq: number;
  readonly leaf_hash: string;
}

/** When the periodic checkpoint is due: after `every` entries past the latest one, `schedule` asks for an alarm. */
export interface CheckpointSchedule {
  readonly every: number;
  schedule(): void;
}

/** Where a page starts (`cursor` or `after`; neither: the first entry) and its size. */
export interface AuditPageRequest {
  readonly cursor?: string | undefined;
  readonly after?: number | undefined;
  readonly limit?: number | undefined;
}

/**
 * The consumer's hash chain. Any service appends to it (tool-call audits, approval decisions,
 * capability events…) with its own `kind`; appends must run inside the caller's transaction.
 * The digests are the core's (`core/audit`); reading and verifying are bounded per request by
 * the consumer's limits and resumable with an opaque cursor (`./cursor`).
 */
export class AuditChain {
  readonly #store: AuditStore;
  /** The chain's Merkle tree (`./tree`), one leaf per entry, kept in the append's transaction. */
  readonly tree: AuditTree;
  /** The archived tiles (`AUDIT_TILES`), when the deployment binds the bucket. */
  readonly tiles: TileBucket | undefined;
  /** Raised when a signing finds the log rewritten (./consistency); the admin reads it. */
  readonly alarm = new AuditAlarm();
  #head: VerifyPosition | undefined;
  /** The size of the latest signed checkpoint (cached), and whether an alarm was asked for since. */
  #signed: number | undefined;
  #asked = false;

  constructor(
    sql: SqlStorage,
    private readonly periodic?: CheckpointSchedule,
    tiles?: R2Bucket,
  ) {
    this.#store = new AuditStore(sql);
    this.tree = new AuditTree(this.#store);
    this.tiles = tiles === undefined ? undefined : new TileBucket(tiles);
  }

  /** The chain's SQL (the checkpoint and proof module reads through it). */
  get store(): AuditStore {
    return this.#store;
  }

  #loadHead(): VerifyPosition {
    this.#head ??= this.#store.head() ?? { seq: 0, sha256: GENESIS_SHA256 };
    return this.#head;
  }

  /** Forgets the cached head (after a rolled-back transaction). */
  reset(): void {
    this.#head = undefined;
    this.#signed = undefined;
    this.#asked = false;
    this.tree.reset();
  }

  /** Appends one record and its tree leaf; returns where it was recorded. */
  append(kind: string, at: number, record: unknown): AuditRef {
    const head = this.#loadHead();
    const seq = head.seq + 1;
    const recordText = canonicalJson(record);
    const sha = entryDigest(seq, kind, at, recordText, head.sha256, fastSha256Hex);
    const entry = { seq, kind, at, record: recordText, prev_sha256: head.sha256, entry_sha256: sha };
    this.#store.insert(entry);
    const leaf = this.tree.append(entry);
    this.#head = { seq, sha256: sha };
    this.#due(seq);
    return { seq, leaf_hash: bytesToHex(leaf) };
  }

  /** Asks once for the alarm that signs when `every` entries followed the latest checkpoint. */
  #due(size: number): void {
    if (this.periodic === undefined || this.#asked) return;
    this.#signed ??= this.#store.latestCheckpoint()?.size ?? 0;
    if (size - this.#signed < this.periodic.every) return;
    this.#asked = true;
    this.periodic.schedule();
  }

  /** A checkpoint of `size` was signed (or the alarm ran): the next period counts from it. */
  signed(size: number | null): void {
    if (size !== null) this.#signed = size;
    this.#asked = false;
  }

  /**
   * One page as canonical JSON (`AuditPage`): the entries after the request's position, oldest
   * first, at most `limits.page_items`, with the cursor of the next page (null at the end).
   * Archived entries are read from their tiles.
   */
  async page(request: AuditPageRequest, limits: Limits): Promise<Outcome<string>> {
    const start = request.cursor === undefined ? ok(request.after ?? 0) : readPageCursor(request.cursor);
    if (!start.ok) return start;
    const max = Math.max(1, limits.page_items);
    const size = Math.min(Math.max(1, request.limit ?? max), max);
    const rows = await readEntries(this.#store, this.tiles, start.value, size + 1);
    const entries: AuditEntry[] = rows.slice(0, size).map(({ entry }) => {
      if (entry === null) throw new Error("an archived audit tile holds a line that is not an entry's canonical line");
      const parsed = readJson(entry.record, STORED_JSON);
      if (!parsed.ok) throw new Error("stored audit record is not strict JSON");
      return { ...entry, record: parsed.value };
    });
    const next = rows.length > size ? (entries[entries.length - 1]?.seq ?? null) : null;
    return ok(canonicalJson({ entries, next_cursor: next === null ? null : pageCursor(next), next_after: next }));
  }

  /**
   * The stored records of one tool call as canonical JSON (`AuditCallRecords`), oldest first: at
   * most {@link MAX_CALL_RECORDS}, found among the newest {@link CALL_RECORDS_SCAN} entries (an
   * archived call is in the export). `NOT_FOUND` when there are none.
   */
  callRecords(callId: string): Outcome<string> {
    const head = this.#store.head()?.seq ?? 0;
    const rows = this.#store.newestOfCall(callId, head - CALL_RECORDS_SCAN, MAX_CALL_RECORDS).reverse();
    if (rows.length === 0) return fail(problem("NOT_FOUND", "No stored record of that call."));
    const entries = rows.map((entry) => {
      const parsed = readJson(entry.record, STORED_JSON);
      if (!parsed.ok) throw new Error("stored audit record is not strict JSON");
      return { ...entry, record: parsed.value };
    });
    return ok(canonicalJson({ call_id: callId, entries }));
  }

  /**
   * One step of the verification walk as canonical JSON (`AuditVerification`): from the start
   * (`cursor` null) or from where the previous step's `next_cursor` left off, at most
   * `limits.page_items × VERIFY_PAGES_PER_CALL` entries. A walk that resumes first checks that
   * the entry at the cursor's position still carries the digest the cursor vouches for.
   *
   * Archived entries were checked (links, digests, leaf hashes against the tree) before their
   * rows were deleted, and their tiles are checked by the export's offline verifier: the walk
   * starts at the archive's last entry (its digest kept in `audit_archive`), so the first stored
   * entry must link to it. A cursor whose position was archived since continues from there too.
   */
  verify(cursor: string | null, limits: Limits): Outcome<string> {
    const archive = this.#store.archive();
    const anchor =
      archive.entries > 0 ? { seq: archive.entries, sha256: archive.lastSha256 } : { seq: 0, sha256: GENESIS_SHA256 };
    const from = cursor === null ? ok(anchor) : readVerifyCursor(cursor);
    if (!from.ok) return from;
    const vouched =
      from.value.seq < archive.entries ||
      (from.value.seq === anchor.seq ? anchor.sha256 : this.#store.digestAt(from.value.seq)) === from.value.sha256;
    if (!vouched) {
      return ok(
        canonicalJson({
          ok: false,
          count: from.value.seq,
          head: from.value.sha256,
          broken_at: from.value.seq,
          next_cursor: null,
        }),
      );
    }
    const position = from.value.seq < archive.entries ? anchor : from.value;
    const max = Math.max(1, limits.page_items) * VERIFY_PAGES_PER_CALL;
    const step = walkStep(position, this.#store.after(position.seq, max + 1), max);
    const next = step.more ? verifyCursor(step.reached) : null;
    return ok(
      canonicalJson({
        ok: step.ok,
        count: step.reached.seq,
        head: step.reached.sha256,
        broken_at: step.brokenAt,
        next_cursor: next,
      }),
    );
  }
}
