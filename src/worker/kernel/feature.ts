/**
 * A feature's registration with the consumer object (each folder's `feature.ts`, listed once in
 * ./features): the SQL of its own tables per schema version, the rows that expire, what it does
 * when the shared alarm fires, and what it holds in memory. The migrations (./migrations), the
 * retention sweep (./retention/sweep), the alarm and the memory report (./memory) iterate the
 * registry instead of naming services.
 * @module
 */
import type { AuditHost } from "../features/audit/rpc";
import type { CapabilityService } from "../features/capability/service";
import type { CredentialService } from "../features/credentials/service";
import type { AgentAdmission } from "../features/identity/admission";
import type { ObjectKernel } from "./kernel";
import type { McpService } from "../features/mcp/service";
import type { ExpiryRule, Migration } from "./schema";
import type { WebhookService } from "../features/webhooks/service";

/** The live services of one object a registration's alarm handler and memory report read. */
export interface ObjectServices {
  readonly kernel: ObjectKernel;
  readonly credentials: CredentialService;
  readonly admission: AgentAdmission;
  readonly mcp: McpService;
  readonly capability: CapabilityService;
  readonly audit: AuditHost;
  readonly webhooks: WebhookService;
}

/** One in-memory structure: its entries now, and what bounds them (`cap`: a fixed number, else null and `bound` says). */
export interface HeldInMemory {
  readonly structure: string;
  readonly entries: number;
  readonly cap: number | null;
  readonly bound: string;
}

/** What one feature registers. */
export interface Feature {
  /** The folder under src/worker/features/ that owns it. */
  readonly name: string;
  /** The DDL of its own tables, per schema version (stored formats are an API: only ever a new version). */
  readonly migrations?: readonly Migration[];
  /** Its rows the retention sweep deletes, in the order the sweep runs them. */
  readonly expiry?: readonly ExpiryRule[];
  /** Runs when the shared alarm fires (idempotent: it asks for its slot again while it needs one). */
  alarm?(object: ObjectServices): void | Promise<void>;
  /** Its in-memory structures beside their bounds. */
  memory?(object: ObjectServices): readonly HeldInMemory[];
}
