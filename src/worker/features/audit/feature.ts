import type { Outcome } from "../../result";
import { defineFeature } from "../../kernel/feature";
import { AuditHost, type AuditCall } from "./rpc";
import { auditRoutes } from "./routes";
import { AUDIT_MIGRATIONS } from "./store";

declare module "../../kernel/feature" {
  interface Services {
    readonly audit: AuditHost;
  }
  interface Operations {
    /** A verification step (`cursor`: where the last one stopped). */
    auditVerify(s: Services, consumer: string, token: string, cursor?: string | null): Outcome<string>;
    /** One tool call's stored records (`token` null: the admin secret). */
    auditCallRecords(s: Services, consumer: string, token: string | null, callId: string): Outcome<string>;
    /** Pages, the checkpoint, proofs, the export. */
    auditCall(s: Services, consumer: string, token: string, call: AuditCall): Promise<Outcome<string>>;
  }
}

/** The audit log: its chain, tree and checkpoints; the periodic checkpoint and the archive run from the alarm. */
export const feature = defineFeature({
  name: "audit",
  routes: [auditRoutes],
  services: { audit: (use) => new AuditHost(use("kernel"), use("gate")) },
  operations: {
    auditVerify: (s, consumer, token, cursor = null) => s.audit.verify(consumer, token, cursor),
    auditCall: (s, consumer, token, call) => s.audit.call(consumer, token, call),
    auditCallRecords: (s, consumer, token, callId) => s.audit.callRecords(consumer, token, callId),
  },
  migrations: AUDIT_MIGRATIONS,
  start: (s) => s.audit.backfill(),
  alarm: (s) => s.audit.alarm(s.kernel.consumerName()),
});
