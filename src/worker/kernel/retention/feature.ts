import type { Feature } from "../feature";

/** The retention sweep (./sweep.ts): the other features' expiry rules, run first when the alarm fires. */
export const RETENTION_FEATURE: Feature = {
  name: "retention",
  alarm: (o) => void o.kernel.retention.sweep(),
};
