// Written by `npm run gen:features` from the folders that hold a feature.ts: do not edit.
// A new feature is a folder with its feature.ts (docs/architecture.md, "Where things go").
import type { Feature } from "../kernel/feature";
import { feature as auditFeature } from "./audit/feature";
import { feature as capabilityFeature } from "./capability/feature";
import { feature as consoleFeature } from "./console/feature";
import { feature as consumersFeature } from "./consumers/feature";
import { feature as credentialsFeature } from "./credentials/feature";
import { feature as eventsFeature } from "./events/feature";
import { feature as identityFeature } from "./identity/feature";
import { feature as mcpFeature } from "./mcp/feature";
import { feature as mcpServersFeature } from "./mcp-servers/feature";
import { feature as oauthFeature } from "./oauth/feature";
import { feature as runtimeFeature } from "./runtime/feature";
import { feature as secretsFeature } from "./secrets/feature";
import { feature as socketsFeature } from "./sockets/feature";
import { feature as standingFeature } from "./standing/feature";
import { feature as toolCallsFeature } from "./tool-calls/feature";
import { feature as toolsFeature } from "./tools/feature";
import { feature as webhooksFeature } from "./webhooks/feature";

/** Every feature folder's registration, in folder-name order. */
export const FEATURE_FOLDERS: readonly Feature[] = [
  auditFeature,
  capabilityFeature,
  consoleFeature,
  consumersFeature,
  credentialsFeature,
  eventsFeature,
  identityFeature,
  mcpFeature,
  mcpServersFeature,
  oauthFeature,
  runtimeFeature,
  secretsFeature,
  socketsFeature,
  standingFeature,
  toolCallsFeature,
  toolsFeature,
  webhooksFeature,
];
