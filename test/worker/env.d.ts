/// <reference types="@cloudflare/vitest-pool-workers/types" />
// Types of `env` and `exports` from "cloudflare:workers" inside the worker test project.
declare namespace Cloudflare {
  interface Env {
    CONSUMER: DurableObjectNamespace<import("../../src/worker/kernel/consumer-object").ConsumerObject>;
    TOOLGATE_ADMIN_TOKEN?: string;
    TOOLGATE_DOWNSTREAM_URL?: string;
    DOWNSTREAM?: Fetcher;
    CHECKPOINTS?: R2Bucket;
    AUDIT_WITNESS?: R2Bucket;
    AUDIT_TILES?: R2Bucket;
    ASSETS?: Fetcher;
    OAUTH_KV?: KVNamespace;
  }
  interface GlobalProps {
    mainModule: typeof import("../../src/worker/index");
    durableNamespaces: "ConsumerObject";
  }
}
