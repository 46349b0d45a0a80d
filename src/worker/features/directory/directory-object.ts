/**
 * The directory of consumers: one SQLite Durable Object for the whole deployment
 * (`idFromName("directory")`), the only place that knows every consumer's name, so the admin
 * can list them. Each consumer object knows only itself.
 * @module
 */
import { DurableObject } from "cloudflare:workers";
import { canonicalJson } from "../../../core/json";
import { ConsumerName } from "../../../contracts/consumer";
import type { Env } from "../../env";
import { ObjectClock } from "../../kernel/clock";
import { cursorCodec } from "../../kernel/cursor";
import { problem } from "../../http/problem";
import { fail, ok, type Outcome } from "../../result";
import { consumersAfter, hasConsumer, migrateDirectory, recordConsumer } from "./store";

/** The name of the one directory object. */
export const DIRECTORY_NAME = "directory";

/** The directory's cursors: base64url of a consumer name (at most 64 characters, so 128 is the bound). */
export const DIRECTORY_CURSOR = cursorCodec<string>({
  prefix: "",
  maxChars: 128,
  write: (name) => name,
  read: (name) => (ConsumerName.safeParse(name).success ? name : null),
  detail: "The cursor is not one this list answered.",
});

/** The directory of consumer names (docs/storage.md, "The directory of consumers"). */
export class DirectoryObject extends DurableObject<Env> {
  readonly clock = new ObjectClock();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    void ctx.blockConcurrencyWhile(async () => ctx.storage.transactionSync(() => migrateDirectory(ctx.storage.sql)));
  }

  /** Records a consumer the admin configured (idempotent: the first time is kept). */
  record(consumer: string): void {
    if (!ConsumerName.safeParse(consumer).success) throw new Error("the directory records consumer names only");
    const now = this.clock.now();
    this.ctx.storage.transactionSync(() => recordConsumer(this.ctx.storage.sql, consumer, now));
  }

  /** One page of consumers after the cursor's name (`null`: from the first), `limit` at most. */
  page(cursor: string | null, limit: number): Outcome<string> {
    let after: string | null = null;
    if (cursor !== null) {
      const name = DIRECTORY_CURSOR.read(cursor);
      if (!name.ok) return name;
      if (!hasConsumer(this.ctx.storage.sql, name.value))
        return fail(problem("INVALID_CURSOR", "The cursor is not one this list answered."));
      after = name.value;
    }
    const rows = consumersAfter(this.ctx.storage.sql, after, limit + 1);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    const next = rows.length > limit && last !== undefined ? DIRECTORY_CURSOR.encode(last.consumer) : null;
    return ok(canonicalJson({ consumers: page, next_cursor: next }));
  }
}
