/// <reference types="@cloudflare/vitest-pool-workers/types" />
// Types of `env` and `exports` from "cloudflare:workers" inside the worker test project.
declare namespace Cloudflare {
  interface Env extends import("../../src/worker/env").Env {}
  interface GlobalProps {
    mainModule: typeof import("../../src/worker/index");
    durableNamespaces: "ConsumerObject";
  }
}
