import type { ConsumerObject } from "./object/consumer-object";

/** Bindings of the toolgate Worker. */
export interface Env {
  /** One Durable Object per consumer, addressed by `idFromName(consumer)`. */
  CONSUMER: DurableObjectNamespace<ConsumerObject>;
  /** The admin credential (a Worker secret; `.dev.vars` locally). */
  TOOLGATE_ADMIN_TOKEN?: string;
  /** Base URL of the downstream service that HTTP tools call (optional). */
  TOOLGATE_DOWNSTREAM_URL?: string;
  /** Optional service binding used instead of `fetch(TOOLGATE_DOWNSTREAM_URL)` (tests, same-account services). */
  DOWNSTREAM?: Fetcher;
  /** R2 bucket of Runtime checkpoints, purged per thread by `checkpoint_purge` envelopes. */
  CHECKPOINTS?: R2Bucket;
}
