import { canonicalJson } from "../../../core/json";
import type { CheckpointPurgeRequest } from "../../../core/wire";
import type { ObjectKernel } from "../../kernel/kernel";
import type { RuntimeStore } from "./store";

/** Objects listed per R2 page, and deleted per R2 call (R2's maximum for both). */
export const PURGE_PAGE_SIZE = 1000;

/** How a purge ended; the transport turns it into a `checkpoint_purge_ack`. */
export type PurgeAnswer =
  | { status: "deleted"; deletedObjects: number }
  | { status: "failed"; code: "PURGE_ID_REUSED" | "CHECKPOINTS_UNAVAILABLE" | "PURGE_FAILED"; message: string }
  | { status: "in_progress" };

/**
 * The private prefix of one thread's checkpoints: `<consumer>/threads/<thread_id>/`, the thread id
 * percent-encoded so that no thread's prefix contains another's.
 */
export function threadCheckpointPrefix(consumer: string, threadId: string): string {
  return `${consumer}/threads/${encodeURIComponent(threadId)}/`;
}

/** Lists every key under `prefix`, page by page with R2's cursor. */
async function listAll(bucket: R2Bucket, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await bucket.list(
      cursor === undefined ? { prefix, limit: PURGE_PAGE_SIZE } : { prefix, limit: PURGE_PAGE_SIZE, cursor },
    );
    for (const object of page.objects) keys.push(object.key);
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor !== undefined);
  return keys;
}

/**
 * Deletes every object under `prefix` and answers how many it deleted. The keys are listed to
 * the end before any is deleted (a cursor stays valid), then deleted in batches; a last listing
 * catches objects written meanwhile.
 */
export async function deletePrefix(bucket: R2Bucket, prefix: string): Promise<number> {
  let deleted = 0;
  for (let round = 0; round < 3; round++) {
    const keys = await listAll(bucket, prefix);
    if (keys.length === 0) return deleted;
    for (let i = 0; i < keys.length; i += PURGE_PAGE_SIZE) await bucket.delete(keys.slice(i, i + PURGE_PAGE_SIZE));
    deleted += keys.length;
  }
  return deleted;
}

/** What a purge uses of the kernel: one transaction step, and the audit chain (inside that transaction). */
type PurgeKernel = Pick<ObjectKernel, "transaction" | "audit">;

/**
 * `checkpoint_purge`, idempotent by `purge_id`: a completed purge is recorded in SQLite and a
 * repeated request answers the recorded count without touching the bucket. Only completed purges
 * are recorded, so a purge interrupted by a failure or a restart runs again in full. Each completed
 * purge joins the audit chain in the same transaction as its record (a replay adds nothing).
 */
export class CheckpointPurger {
  readonly #running = new Set<string>();

  constructor(
    private readonly store: RuntimeStore,
    private readonly bucket: R2Bucket | undefined,
  ) {}

  /** Runs (or replays) one purge request of `consumer` sent by `credentialId` (its audit record names it); `now` in Unix seconds. */
  async purge(
    consumer: string,
    request: CheckpointPurgeRequest,
    now: number,
    kernel: PurgeKernel,
    credentialId: string,
  ): Promise<PurgeAnswer> {
    const requestKey = canonicalJson({
      conversation_key: request.conversation_key,
      scope: { scope_id: request.scope.scope_id, tenant_id: request.scope.tenant_id },
      surface_id: request.surface_id,
      thread_id: request.thread_id,
    });
    const done = this.store.purge(request.purge_id);
    if (done !== undefined) {
      if (done.requestKey !== requestKey)
        return {
          status: "failed",
          code: "PURGE_ID_REUSED",
          message: "The purge id was already used for another thread.",
        };
      return { status: "deleted", deletedObjects: done.deletedObjects };
    }
    if (this.bucket === undefined)
      return { status: "failed", code: "CHECKPOINTS_UNAVAILABLE", message: "The checkpoint bucket is not bound." };
    if (this.#running.has(request.purge_id)) return { status: "in_progress" };
    this.#running.add(request.purge_id);
    const prefix = threadCheckpointPrefix(consumer, request.thread_id);
    try {
      let deleted: number;
      try {
        deleted = await deletePrefix(this.bucket, prefix);
      } catch {
        return {
          status: "failed",
          code: "PURGE_FAILED",
          message: "The checkpoint bucket refused the purge; retry it.",
        };
      }
      kernel.transaction(() => {
        this.store.recordPurge(request.purge_id, requestKey, prefix, deleted, now);
        kernel.audit.append("runtime.checkpoint_purge", now, {
          purge_id: request.purge_id,
          conversation_key: request.conversation_key,
          scope: { scope_id: request.scope.scope_id, tenant_id: request.scope.tenant_id },
          surface_id: request.surface_id,
          thread_id: request.thread_id,
          thread_prefix: prefix,
          deleted_objects: deleted,
          credential_id: credentialId,
        });
      });
      return { status: "deleted", deletedObjects: deleted };
    } finally {
      this.#running.delete(request.purge_id);
    }
  }
}
