import { tracerFor } from "../trace/config";
import type { Tracer } from "../trace/span";
import { defineFeature } from "./feature";
import { Gatekeeper } from "./gatekeeper";

declare module "./feature" {
  interface Services {
    /** Who may make an operation of the access table (./gatekeeper). */
    readonly gate: Gatekeeper;
    /** Traces of agent tool calls (../trace, docs/traces.md): exported when TOOLGATE_OTLP_ENDPOINT is set, a no-op otherwise. */
    readonly tracer: Tracer;
  }
}

/** The kernel's own registration: the gatekeeper and the tracer, a round trip, the CORS allow-list and the retention sweep (./retention). */
export const KERNEL_FEATURE = defineFeature({
  name: "kernel",
  services: {
    gate: (use) => new Gatekeeper(use("kernel").config, use("credentials")),
    tracer: (use) => {
      const kernel = use("kernel");
      return tracerFor(kernel.env, (promise) => kernel.waitUntil(promise));
    },
  },
  operations: {
    ping: () => "pong",
    corsOrigins: (s) => [...(s.kernel.config.current()?.corsOrigins ?? [])],
  },
  alarm: (s) => void s.kernel.retention.sweep(),
});
