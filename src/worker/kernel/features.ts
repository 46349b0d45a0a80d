/**
 * Every feature of the consumer object, once (./feature). The order is the order things run in:
 * each schema version's DDL (a feature's part after those above it), the retention sweep's rules,
 * the alarm's handlers (the sweep first) and the rows of the memory report.
 * @module
 */
import { AUDIT_FEATURE } from "../features/audit/feature";
import { CAPABILITY_FEATURE } from "../features/capability/feature";
import { CONSOLE_FEATURE } from "../features/console/feature";
import { CONSUMER_FEATURE } from "../features/consumers/feature";
import { CREDENTIALS_FEATURE } from "../features/credentials/feature";
import { EVENTS_FEATURE } from "../features/events/feature";
import type { Feature, ObjectServices } from "./feature";
import { IDENTITY_FEATURE } from "../features/identity/feature";
import { MCP_FEATURE } from "../features/mcp/feature";
import { MCP_SERVERS_FEATURE } from "../features/mcp-servers/feature";
import { RETENTION_FEATURE } from "./retention/feature";
import { RUNTIME_FEATURE } from "../features/runtime/feature";
import { SECRETS_FEATURE } from "../features/secrets/feature";
import { SESSIONS_FEATURE } from "../features/sockets/sessions";
import { TOOL_CALLS_FEATURE } from "../features/tool-calls/feature";
import { TOOLS_FEATURE } from "../features/tools/feature";
import { WEBHOOKS_FEATURE } from "../features/webhooks/feature";

export const FEATURES: readonly Feature[] = [
  RETENTION_FEATURE,
  CONSUMER_FEATURE,
  CREDENTIALS_FEATURE,
  IDENTITY_FEATURE,
  EVENTS_FEATURE,
  TOOL_CALLS_FEATURE,
  MCP_FEATURE,
  CAPABILITY_FEATURE,
  AUDIT_FEATURE,
  RUNTIME_FEATURE,
  TOOLS_FEATURE,
  SECRETS_FEATURE,
  MCP_SERVERS_FEATURE,
  WEBHOOKS_FEATURE,
  CONSOLE_FEATURE,
  SESSIONS_FEATURE,
];

/**
 * The shared alarm fired (./alarms): each feature's handler in registry order: the retention
 * sweep, the capability engine's next deadline, the audit log's periodic checkpoint, webhook
 * deliveries; each idempotent.
 */
export async function fireAlarm(services: ObjectServices): Promise<void> {
  services.kernel.alarms.fired(Date.now());
  for (const feature of FEATURES) {
    const done = feature.alarm?.(services);
    if (done !== undefined) await done;
  }
}
