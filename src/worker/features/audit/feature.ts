import type { Feature } from "../../kernel/feature";
import { AUDIT_MIGRATIONS } from "./store";

/** The audit log: its chain, tree and checkpoints; the periodic checkpoint and the archive run from the alarm. */
export const AUDIT_FEATURE: Feature = {
  name: "audit",
  migrations: AUDIT_MIGRATIONS,
  alarm: (o) => o.audit.alarm(o.kernel.consumerName()),
};
