import { RATE_BUCKETS } from "../credentials/rate";
import type { Feature } from "../../kernel/feature";

/** Admission of agent calls: one call-rate bucket per credential that called lately (credentials/rate.ts, an LRU map). */
export const IDENTITY_FEATURE: Feature = {
  name: "identity",
  memory: (o) => [
    { structure: "call-rate buckets", entries: o.admission.rateBuckets, cap: RATE_BUCKETS, bound: "LRU" },
  ],
};
