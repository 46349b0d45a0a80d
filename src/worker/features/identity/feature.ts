import { defineFeature } from "../../kernel/feature";
import { RATE_BUCKETS } from "../credentials/rate";
import { AgentAdmission } from "./admission";

declare module "../../kernel/feature" {
  interface Services {
    /** Admission of agent calls: who calls, at what rate. */
    readonly admission: AgentAdmission;
  }
}

/** Admission of agent calls: one call-rate bucket per credential that called lately (credentials/rate.ts, an LRU map). */
export const feature = defineFeature({
  name: "identity",
  services: { admission: (use) => new AgentAdmission(use("kernel")) },
  memory: (s) => [
    { structure: "call-rate buckets", entries: s.admission.rateBuckets, cap: RATE_BUCKETS, bound: "LRU" },
  ],
});
