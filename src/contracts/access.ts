/**
 * Who may call what: the one access table of the gate. Authentication (in the consumer
 * object), the routes (admin secret or consumer credential) and the OpenAPI document all read
 * it. Adding a credential kind or an operation touches this table, its route and its service. A
 * route declaration names its entry by key (a typed reference), and a test
 * (test/worker/http/access-routes.test.ts) proves every entry has a route: the table stays here,
 * free of Worker code, because the consumer object reads it too.
 * @module
 */

/** Kinds of consumer credentials (admin is a Worker secret, not one of these). */
export const CREDENTIAL_KINDS = ["agent", "approver", "provider", "runtime", "auditor"] as const;

/** A consumer credential kind. */
export type CredentialKind = (typeof CREDENTIAL_KINDS)[number];

/** A caller class: the admin secret, or a consumer credential of a kind. */
export type CallerClass = "admin" | CredentialKind;

/**
 * Every operation of the gate and the caller classes allowed to make it. The keys are the
 * consumer object's operations (one RPC method each, or one capability call kind).
 */
export const ACCESS = {
  // Consumer administration.
  configure: ["admin"],
  patchConsumer: ["admin"],
  createCredential: ["admin"],
  revokeCredential: ["admin"],
  ping: ["admin"],
  facadeTargets: ["admin"],
  // The admin's reads: a consumer's configuration, the directory of consumers, a consumer's credentials.
  getConsumer: ["admin"],
  listConsumers: ["admin"],
  listCredentials: ["admin"],
  // Tools as data and consumer secrets (the tool list in a model's format: agents too).
  defineTool: ["admin"],
  getTool: ["admin"],
  listTools: ["admin", "agent"],
  setToolState: ["admin"],
  deleteTool: ["admin"],
  // A tool's shadow rules: their counts and disagreements; a candidate replayed against past calls.
  toolShadow: ["admin"],
  replayTool: ["admin"],
  putSecret: ["admin"],
  deleteSecret: ["admin"],
  listSecrets: ["admin"],
  // MCP servers as targets: registration and import of their tools.
  registerMcpServer: ["admin"],
  listMcpServers: ["admin"],
  getMcpServer: ["admin"],
  importMcpServer: ["admin"],
  deleteMcpServer: ["admin"],
  // Webhook endpoints of the consumer's events, the delivery log and a manual redelivery.
  createWebhook: ["admin"],
  listWebhooks: ["admin"],
  getWebhook: ["admin"],
  deleteWebhook: ["admin"],
  listWebhookDeliveries: ["admin"],
  redeliverWebhook: ["admin"],
  // Tool-call service.
  toolCall: ["agent"],
  toolCallStatus: ["agent"],
  // The tool calls of one model turn, each its own toolCall (answered as one provider message).
  toolCallBatch: ["agent"],
  // MCP: the endpoint (Streamable HTTP) and the OAuth sign-in that mints a credential for it.
  mcp: ["agent"],
  listApprovals: ["approver"],
  decideApproval: ["approver"],
  // The requesting end user's in-chat confirmation, relayed by the agent credential whose call opened the approval.
  confirmApproval: ["agent"],
  // Standing approvals: an approver grants, lists and revokes them.
  grantStanding: ["approver"],
  listStanding: ["approver"],
  revokeStanding: ["approver"],
  // Approver console: a session exchanged for an approver credential; the audit part of its page.
  consoleSignIn: ["approver"],
  consoleAudit: ["approver"],
  // The console's read-only page of the data tools' shadow rules and their disagreements.
  consoleShadow: ["approver"],
  // An approval's status (waiting for its decision) and the approval stream: an agent sees what its credential opened.
  getApproval: ["agent", "approver"],
  approvalEvents: ["agent", "approver"],
  // Audit service.
  auditPage: ["auditor"],
  // One call's records, a failed run's operator cause included: for the operator (admin) too.
  auditCallRecords: ["admin", "auditor"],
  auditVerify: ["auditor"],
  auditCheckpoint: ["auditor"],
  auditInclusion: ["auditor"],
  auditConsistency: ["auditor"],
  auditExport: ["auditor"],
  // Runtime service.
  runtimeEnvelope: ["runtime"],
  runtimeConnect: ["runtime"],
  // Capability service.
  "register-provider": ["admin"],
  "set-instance": ["admin"],
  "remove-instance": ["admin"],
  authority: ["admin", "approver"],
  approvals: ["admin", "approver"],
  request: ["agent"],
  "request-status": ["agent"],
  "drain-completions": ["agent"],
  snapshot: ["admin", "auditor"],
  connect: ["provider"],
  attach: ["provider"],
  poll: ["provider"],
  observe: ["provider"],
  detach: ["provider"],
} as const satisfies Record<string, readonly CallerClass[]>;

/** An operation named in {@link ACCESS}. */
export type Operation = keyof typeof ACCESS;

/** The credential kinds (admin excluded) that may make an operation. */
export function credentialKinds(operation: Operation): readonly CredentialKind[] {
  return (ACCESS[operation] as readonly CallerClass[]).filter((k): k is CredentialKind => k !== "admin");
}

/** Whether the admin secret may make an operation. */
export function adminMay(operation: Operation): boolean {
  return (ACCESS[operation] as readonly CallerClass[]).includes("admin");
}

/** How the OpenAPI document names who may call: `agent`, `approver-or-admin`, … */
export function accessLabel(operation: Operation): string {
  const classes = ACCESS[operation] as readonly CallerClass[];
  return classes.length === 2 && classes[0] === "admin" ? `${classes[1]}-or-admin` : classes.join("-or-");
}
