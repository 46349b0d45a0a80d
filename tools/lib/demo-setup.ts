// What `npm start` sets up once the gate is healthy, and the curl lines it prints: the consumer
// "demo" gets two tools defined as data (targeting the local demo service, tools/lib/demo-service.ts)
// besides the gate's demo catalog; "tenant-a" keeps the catalog alone (the reference's orders).
import { randomBytes } from "node:crypto";
import { recordingMint, revokeIssued, type AdminAccess } from "./credentials.ts";
import { demoTools } from "./demo-service.ts";

/** The gate's own demo catalog (the reference's tools). */
export const CATALOG_TOOLS = ["get_order", "create_refund_draft"];
/** The tools defined as data on the consumer "demo". */
export const DATA_TOOLS = ["lookup_customer", "create_invoice"];
/** The consumer secret the demo service's bearer token is stored under. */
export const DEMO_SECRET = "demo_service_token";
const APPROVER = "human-reviewer-1";

const JSON_TYPE = "-H 'content-type: application/json'";
/** curl as the printed lines run it: silent, and a newline after each answer (the gate's JSON ends without one). */
const CURL = "curl -s -w '\\n'";

/** A tool-call body for the subject `user-1` (`key`: the write's idempotency key, or null). */
function toolCall(
  name: string,
  args: Record<string, unknown>,
  roles: string[],
  callId: string,
  key: string | null,
): string {
  const context = {
    call_id: callId,
    operation_id: `op-${callId}`,
    idempotency_key: key,
    provider: "openai",
    api_family: "responses",
    response_id: "resp-1",
    adapter_revision: "openai-responses-v1",
  };
  return JSON.stringify({ principal: { subject_id: "user-1", roles }, proposal: { name, arguments: args }, context });
}

/** JSON on one line, spaced for reading. */
function flat(value: unknown): string {
  if (typeof value !== "object" || value === null) return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(flat).join(", ")}]`;
  const members = Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${flat(v)}`);
  return members.length === 0 ? "{}" : `{ ${members.join(", ")} }`;
}

/** JSON for reading: a value that fits on its line stays on one line. */
function pretty(value: unknown, indent = ""): string {
  const line = flat(value);
  if (typeof value !== "object" || value === null || indent.length + line.length <= 100) return line;
  const inner = `${indent}  `;
  if (Array.isArray(value)) return `[\n${value.map((v) => inner + pretty(v, inner)).join(",\n")}\n${indent}]`;
  return `{\n${Object.entries(value)
    .map(([k, v]) => `${inner}${JSON.stringify(k)}: ${pretty(v, inner)}`)
    .join(",\n")}\n${indent}}`;
}

/** The shell line that picks one field of the pending approval of `callId` out of `$PENDING`, with node (no jq). */
function pick(variable: string, callId: string, field: string): string {
  return `${variable}=$(printf '%s' "$PENDING" | node -p 'JSON.parse(require("fs").readFileSync(0, "utf8")).approvals.find((a) => a.call_id === "${callId}").${field}')`;
}

/**
 * The shell lines that approve the pending call `callId` on `$<base>` as `$<approver>`: the list
 * into `$PENDING`, its approval_id and approval_digest picked into `$<prefix>ID` and
 * `$<prefix>DIGEST`, and the decision sent with them, so a pasted block needs no editing.
 */
export function approveLines(base: string, approver: string, callId: string, prefix = ""): string[] {
  const [id, digest] = [`${prefix}ID`, `${prefix}DIGEST`];
  return [
    `PENDING=$(curl -s "$${base}/approvals?state=pending" -H "authorization: Bearer $${approver}")`,
    pick(id, callId, "approval_id"),
    pick(digest, callId, "approval_digest"),
    `${CURL} $${base}/approvals/$${id} -H "authorization: Bearer $${approver}" ${JSON_TYPE} -d "{\\"decision\\":\\"approve\\",\\"approval_digest\\":\\"$${digest}\\"}"`,
  ];
}

/**
 * Configures the demo consumers through the admin API (`call`, from wrangler-dev.ts), defines the two
 * data tools on "demo" (the secret first, the definitions next, then the consumer's tool list:
 * the gate refuses names nobody defined), mints credentials and answers the text to print.
 * `demoBase`: the demo service's `http://127.0.0.1:<port>`; `token`: its bearer token;
 * `issuedPath`: the record of the credentials npm start issued (tools/lib/credentials.ts):
 * those of the previous start are revoked first, each new one is recorded as it is minted.
 */
export async function setUpDemo({
  base,
  admin,
  demoBase,
  token,
  devVarsPath,
  statePath = ".toolgate/state",
  issuedPath,
  call,
}: DemoSetup): Promise<string> {
  const revoked = await revokeIssued({ base, admin, path: issuedPath, call });
  for (const consumer of ["demo", "tenant-a"]) {
    await call(base, "PUT", `/v1/consumers/${consumer}`, admin, {
      tools: CATALOG_TOOLS,
      approver_subjects: [APPROVER],
    });
  }
  const demo = "/v1/consumers/demo";
  const tools = demoTools(demoBase, DEMO_SECRET);
  await call(base, "PUT", `${demo}/secrets/${DEMO_SECRET}`, admin, { value: token });
  for (const [name, definition] of Object.entries(tools))
    await call(base, "PUT", `${demo}/tools/${name}`, admin, definition);
  await call(base, "PUT", demo, admin, { tools: [...CATALOG_TOOLS, ...DATA_TOOLS], approver_subjects: [APPROVER] });
  const mint = recordingMint({ base, admin, path: issuedPath, call });
  const agent = await mint("demo", { kind: "agent", roles: ["support"] });
  const approver = await mint("demo", { kind: "approver", subject_id: APPROVER });
  const auditor = await mint("demo", { kind: "auditor" });
  const ref = {
    agent: await mint("tenant-a", { kind: "agent" }),
    approver: await mint("tenant-a", { kind: "approver", subject_id: APPROVER }),
    auditor: await mint("tenant-a", { kind: "auditor" }),
  };
  // An MCP session acts for one subject: the reference's orders belong to user-1 of tenant-a.
  const mcpAgent = await mint("tenant-a", { kind: "agent", subject_id: "user-1" });
  // Call ids and keys are new on every start: the gate keeps its state in .toolgate/state, and a
  // repeated key would replay the last run's result instead of showing the flow.
  const run = randomBytes(3).toString("hex");
  const support = ["support"];
  const lookup = toolCall("lookup_customer", { customer: "acme" }, support, `lookup-${run}`, null);
  const small = toolCall(
    "create_invoice",
    { customer: "acme", amount: 40, memo: "June support" },
    support,
    `invoice-40-${run}`,
    `invoice-40-${run}`,
  );
  const bigCall = `invoice-250-${run}`;
  const big = toolCall("create_invoice", { customer: "acme", amount: 250 }, support, bigCall, bigCall);
  const read = toolCall("get_order", { order_ref: "ORDER-7" }, [], `order-${run}`, null);
  const refundCall = `refund-${run}`;
  const refund = toolCall(
    "create_refund_draft",
    { order_ref: "ORDER-7", reason: "duplicate" },
    [],
    refundCall,
    refundCall,
  );
  const as = (who: string): string => `-H "authorization: Bearer $${who}"`;
  const definition = pretty(tools.create_invoice);
  return `
toolgate is running at ${base} (state in ${statePath}; admin token and keys in ${devVarsPath}).
The demo service, the target of the tools defined as data, is running at ${demoBase}.

Approver console: ${base}/console
  sign in with consumer "demo" and the approver credential ${approver}
  (approvals appear there live; docs/console.md)

== Tools as data, on the consumer "demo" (docs/tools.md) ==
lookup_customer (a read) and create_invoice (a write: the CEL rule args.amount > 100 asks a human)
call the demo service; "demo" also has the gate's catalog. Paste these lines into a shell:

export TG=${base}${demo}
export ADMIN=$(sed -n 's/^TOOLGATE_ADMIN_TOKEN=//p' '${devVarsPath}')
export AGENT=${agent}
export APPROVER=${approver}
export AUDITOR=${auditor}

# admin: define a tool (the same definition keeps its version; a changed one is the next version)
${CURL} -X PUT $TG/tools/create_invoice ${as("ADMIN")} ${JSON_TYPE} --data-binary @- <<'EOF'
${definition}
EOF
# agent: call the read (CEL authorize: "support" in principal.roles)
${CURL} $TG/tool-calls ${as("AGENT")} ${JSON_TYPE} -d '${lookup}'
# agent: a write of 40: the approval rule is false, so it runs at once
${CURL} $TG/tool-calls ${as("AGENT")} ${JSON_TYPE} -d '${small}'
# agent: a write of 250: the rule is true, so it answers APPROVAL_REQUIRED and an approval_id
${CURL} $TG/tool-calls ${as("AGENT")} ${JSON_TYPE} -d '${big}'
# approver: what is pending (each approval shows its approval_id and the approval_digest computed for you)
${CURL} "$TG/approvals?state=pending" ${as("APPROVER")}
# approver: approve the write of 250, sending back its approval_digest from the list (node picks it out)
${approveLines("TG", "APPROVER", bigCall).join("\n")}
# agent: the decision, by long-poll instead of re-sending the call: ?wait=60 holds while the approval is
# pending (up to 60 s) and answers the moment it is decided, so here at once; run it in a second shell
# before the approval above to see it return when the approver decides
${CURL} "$TG/approvals/$ID?wait=60" ${as("AGENT")}
# agent: the same call again, within 10 minutes of the approval (the consumer's window), now runs, once; repeat it to see local_replay
${CURL} $TG/tool-calls ${as("AGENT")} ${JSON_TYPE} -d '${big}'
# admin CLI (docs/admin-cli.md): the same gate from the command line, tables or --json
export TOOLGATE_URL=${base} TOOLGATE_CONSUMER=demo TOOLGATE_ADMIN_TOKEN=$ADMIN TOOLGATE_APPROVER_TOKEN=$APPROVER TOOLGATE_AUDITOR_TOKEN=$AUDITOR
npx toolgate admin tools list
npx toolgate admin approvals list
# admin: a webhook endpoint for approval and outcome events (docs/webhooks.md); its secret is answered once
npx toolgate admin webhooks create --url http://127.0.0.1:9999/hooks
# auditor: read the audit chain (follow next_cursor with ?cursor=…) and verify it
${CURL} "$TG/audit?limit=50" ${as("AUDITOR")}
${CURL} $TG/audit/verify ${as("AUDITOR")}
# agent: the enabled tools as OpenAI function tools (or format=anthropic, gemini, json-schema)
${CURL} "$TG/tools?format=openai" ${as("AGENT")}

== The gate's demo catalog, on the consumer "tenant-a" (the reference's orders) ==
export REF=${base}/v1/consumers/tenant-a
export REF_AGENT=${ref.agent}
export REF_APPROVER=${ref.approver}
export REF_AUDITOR=${ref.auditor}

# agent: read an order
${CURL} $REF/tool-calls ${as("REF_AGENT")} ${JSON_TYPE} -d '${read}'
# agent: a write needs approval (answers APPROVAL_REQUIRED and an approval_id)
${CURL} $REF/tool-calls ${as("REF_AGENT")} ${JSON_TYPE} -d '${refund}'
# approver: what is pending, then approve the refund with its approval_id and approval_digest (node picks them out)
${CURL} "$REF/approvals?state=pending" ${as("REF_APPROVER")}
${approveLines("REF", "REF_APPROVER", refundCall, "REF_").join("\n")}
# agent: the same call again now runs, once; auditor: the audit chain
${CURL} $REF/tool-calls ${as("REF_AGENT")} ${JSON_TYPE} -d '${refund}'
${CURL} "$REF/audit?limit=50" ${as("REF_AUDITOR")}

== MCP: "tenant-a" as an MCP server (docs/mcp.md) ==
Connect Claude, the MCP Inspector or any MCP client to $REF/mcp (Streamable HTTP) with the header
"Authorization: Bearer $MCP_AGENT"; for example npx @modelcontextprotocol/inspector, or:

export MCP_AGENT=${mcpAgent}
${CURL} -i $REF/mcp ${as("MCP_AGENT")} ${JSON_TYPE} -H "accept: application/json, text/event-stream" -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}'
# then, with the Mcp-Session-Id header it answered: tools/list and tools/call (a write answers APPROVAL_REQUIRED as above)
# npm run mcp:conformance runs the official MCP conformance suite against this gate

The credentials above are new and stay valid until the next npm start revokes them${revoked === 0 ? "" : `; the ${revoked} the previous start printed are revoked`}.
Press Ctrl-C to stop.
`;
}

/** What {@link setUpDemo} takes. */
export interface DemoSetup extends AdminAccess {
  demoBase: string;
  token: string;
  devVarsPath: string;
  statePath?: string;
  issuedPath: string;
}
