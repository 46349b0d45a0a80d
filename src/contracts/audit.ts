import * as z from "../core/zod";
import { httpSchemas, Sha256Hex } from "./registry";

/** One audit-chain entry. */
export const AuditEntryView = z.deferred(() =>
  z
    .strictObject({
      seq: z.int().check(z.gte(1)),
      kind: z.string(),
      at: z.int(),
      record: z.record(z.string(), z.unknown()),
      prev_sha256: Sha256Hex,
      entry_sha256: Sha256Hex,
    })
    .register(httpSchemas, { id: "AuditEntry" }),
);

/**
 * A page of the audit chain, oldest entry first. `next_cursor` (opaque) continues after the
 * page's last entry and is null at the end; `next_after` is the same position as a sequence
 * number (the `after` of the next page), kept for clients that page with `after`.
 */
export const AuditPage = z.deferred(() =>
  z
    .strictObject({
      entries: z.array(AuditEntryView),
      next_cursor: z.nullable(z.string()),
      next_after: z.nullable(z.int()),
    })
    .register(httpSchemas, { id: "AuditPage" }),
);

/** The most records `GET …/audit/calls/{call_id}` answers (a call's first record, its status reads, a recovery). */
export const MAX_CALL_RECORDS = 20;

/** How many of the newest stored entries `GET …/audit/calls/{call_id}` looks through. */
export const CALL_RECORDS_SCAN = 20_000;

/**
 * `GET …/audit/calls/{call_id}`: the stored chain's records of one tool call (`provider_context.call_id`),
 * oldest first: what it did, its error code and, for a failed run, the operator's `cause`.
 */
export const AuditCallRecords = z.deferred(() =>
  z
    .strictObject({ call_id: z.string(), entries: z.array(AuditEntryView) })
    .register(httpSchemas, { id: "AuditCallRecords" }),
);

/** An opaque cursor as the gate answered it (its shape is checked by the object: `INVALID_CURSOR`). */
const Cursor = z.deferred(() => z.string().check(z.minLength(1), z.maxLength(256)));

/**
 * Query of `GET …/audit`: where to start (`cursor` from a previous page, or `after` a sequence
 * number; neither: the first entry) and the page size (`limit`, at most the consumer's
 * `page_items`; a larger value is served as `page_items`, none means `page_items`).
 */
export const AuditQuery = z.deferred(() =>
  z
    .strictObject({
      cursor: z.optional(Cursor),
      after: z.optional(z.coerce.number().check(z.int(), z.gte(0), z.lte(Number.MAX_SAFE_INTEGER))),
      limit: z.optional(z.coerce.number().check(z.int(), z.gte(1), z.lte(Number.MAX_SAFE_INTEGER))),
    })
    .check(
      z.refine((q) => q.cursor === undefined || q.after === undefined, {
        error: "give either cursor or after, not both",
      }),
    ),
);

/** Query of `GET …/audit/verify`: `cursor` continues a walk (the `next_cursor` of the previous call). */
export const AuditVerifyQuery = z.deferred(() => z.strictObject({ cursor: z.optional(Cursor) }));

/**
 * One step of the chain's verification walk. Entries `1..count` are verified, the last of them
 * with digest `head` (the genesis value when `count` is 0). `ok` false: `broken_at` is the first
 * entry found not to match (the entry after `count`, or the one at the cursor's position when
 * it changed since the cursor was answered) and the walk ends. `next_cursor` continues the walk
 * and is null once the newest entry is verified (or at a break).
 */
export const AuditVerifyView = z.deferred(() =>
  z
    .strictObject({
      ok: z.boolean(),
      count: z.int().check(z.gte(0)),
      head: Sha256Hex,
      broken_at: z.nullable(z.int().check(z.gte(1))),
      next_cursor: z.nullable(z.string()),
    })
    .register(httpSchemas, { id: "AuditVerification" }),
);

/** Standard padded base64 of a 32-byte hash (RFC 4648 §4), as C2SP checkpoints write it. */
const Base64Hash = z.deferred(() => z.string().check(z.regex(/^[A-Za-z0-9+/]{43}=$/)));

/** A non-negative decimal query value (a sequence number or a tree size). */
const Count = z.deferred(() => z.coerce.number().check(z.int(), z.gte(0), z.lte(Number.MAX_SAFE_INTEGER)));

/**
 * The latest signed checkpoint of the consumer's log (signed first if the tree grew): its tree
 * size, root hash, and the C2SP signed note (`<origin>\n<size>\n<base64 root>\n\n— <key name> <base64 signature>\n`).
 */
export const AuditCheckpointView = z.deferred(() =>
  z
    .strictObject({ size: z.int().check(z.gte(0)), root: Base64Hash, checkpoint: z.string() })
    .register(httpSchemas, { id: "AuditCheckpoint" }),
);

/** Query of `GET …/audit/proof/inclusion`: entry `seq` (1-based) in the tree of `size` entries (default: the latest checkpoint's). */
export const AuditInclusionQuery = z.deferred(() =>
  z.strictObject({ seq: Count.check(z.gte(1)), size: z.optional(Count) }),
);

/** An RFC 9162 §2.1.3 inclusion proof: leaf `seq − 1` in the tree of `tree_size` leaves; hashes in base64. */
export const AuditInclusionView = z.deferred(() =>
  z
    .strictObject({
      seq: z.int().check(z.gte(1)),
      leaf_index: z.int().check(z.gte(0)),
      tree_size: z.int().check(z.gte(1)),
      leaf_hash: Base64Hash,
      proof: z.array(Base64Hash),
    })
    .register(httpSchemas, { id: "AuditInclusionProof" }),
);

/** Query of `GET …/audit/proof/consistency`: the tree of `from` entries against the tree of `to` entries. */
export const AuditConsistencyQuery = z.deferred(() =>
  z
    .strictObject({ from: Count, to: Count })
    .check(z.refine((q) => q.from <= q.to, { error: "from must be at most to", path: ["from"] })),
);

/** An RFC 9162 §2.1.4 consistency proof (empty for `from` 0 or `from` = `to`); hashes in base64. */
export const AuditConsistencyView = z.deferred(() =>
  z
    .strictObject({ from: z.int().check(z.gte(0)), to: z.int().check(z.gte(0)), proof: z.array(Base64Hash) })
    .register(httpSchemas, { id: "AuditConsistencyProof" }),
);

/** `GET /v1/audit/verifier-keys`: the C2SP verifier keys of checkpoints, the current key first, then the previous one. */
export const AuditVerifierKeys = z.deferred(() =>
  z.strictObject({ keys: z.array(z.string()) }).register(httpSchemas, { id: "AuditVerifierKeys" }),
);

/** A tool call's audit reference: the entry that recorded it and its Merkle leaf hash (hex). */
export const AuditReference = z.deferred(() =>
  z
    .strictObject({ seq: z.int().check(z.gte(1)), leaf_hash: Sha256Hex })
    .register(httpSchemas, { id: "AuditReference" }),
);
