/**
 * Issue #29, URL-mode elicitation (MCP 2025-11-25): the official SDK client declaring
 * `elicitation: { url: {} }` that calls a write needing approval, without a task, is sent an
 * `elicitation/create` in URL mode on the call's stream (the approval's console page under
 * TOOLGATE_PUBLIC_URL, an elicitationId, a message naming the tool and who decides), still gets
 * the isError guidance result, and hears `notifications/elicitation/complete` on its GET stream
 * once the approver decides. A client without the URL capability is sent nothing.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
  type ClientCapabilities,
} from "@modelcontextprotocol/sdk/types.js";
import { beforeEach, describe, expect, it } from "vitest";
import { createConsumer, credential, gateFetch, pinClock, wipe } from "../../kit";
import { decideAll, MCP, T0 } from "./mcp-server-support";

let agent: string;
let approver: string;

beforeEach(async () => {
  await wipe("tenant-a");
  await createConsumer("tenant-a", ["get_order", "create_refund_draft"], ["rev-1"]);
  await pinClock("tenant-a", T0);
  agent = (await credential("tenant-a", "agent", "user-1")).secret;
  approver = (await credential("tenant-a", "approver", "rev-1")).secret;
});

interface Connected {
  readonly client: Client;
  readonly sessionId: string;
  /** The elicitation requests the client was sent (their params). */
  readonly asked: unknown[];
  /** Resolves with the first `notifications/elicitation/complete`'s params. */
  readonly completed: Promise<unknown>;
}

async function connect(capabilities: ClientCapabilities): Promise<Connected> {
  const client = new Client({ name: "url-elicitation-test", version: "1.0.0" }, { capabilities });
  const asked: unknown[] = [];
  if (capabilities.elicitation !== undefined)
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params);
      return { action: "accept" };
    });
  const completed = new Promise<unknown>((resolve) =>
    client.setNotificationHandler(ElicitationCompleteNotificationSchema, (n) => resolve(n.params)),
  );
  const transport = new StreamableHTTPClientTransport(new URL(`http://localhost${MCP}`), {
    requestInit: { headers: { authorization: `Bearer ${agent}` } },
    fetch: (url, init) => gateFetch(url, init),
  });
  await client.connect(transport);
  return { client, sessionId: transport.sessionId ?? "", asked, completed };
}

/** `mcpe_` + the first 32 hex digits of SHA-256 over the canonical JSON array (docs/mcp.md, "Call identity"'s `h`). */
async function derived(prefix: string, parts: string[]): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(JSON.stringify(parts)));
  const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${prefix}_${hex.slice(0, 32)}`;
}

const REFUND = { name: "create_refund_draft", arguments: { order_ref: "ORDER-7", reason: "duplicate" } };

function within<T>(promise: Promise<T>, ms: number): Promise<T | "timeout"> {
  return Promise.race([promise, new Promise<"timeout">((done) => setTimeout(() => done("timeout"), ms))]);
}

describe("URL-mode elicitation of an approval", () => {
  it("sends the approval's console page to a client that declared it, then its completion once decided", async () => {
    const { client, sessionId, asked, completed } = await connect({ elicitation: { url: {} } });
    const waiting = await client.callTool(REFUND);
    const approvalId = (waiting._meta ?? {})["io.toolgate/approval_id"];
    if (typeof approvalId !== "string") throw new Error("no approval id");
    expect(waiting.isError).toBe(true);
    expect((waiting.content as Array<{ text: string }>)[0]?.text).toMatch(
      /^This call waits for a person's approval \(approval apr_/,
    );
    const elicitationId = await derived("mcpe", ["elicitation", sessionId, approvalId]);
    expect(asked).toEqual([
      {
        mode: "url",
        message:
          `create_refund_draft waits for a person's approval (approval ${approvalId}). ` +
          "One of this consumer's approvers (rev-1) decides it in the toolgate console; the link opens that approval. " +
          "Once it is approved, the same call made again runs, once.",
        url: `https://gate.test/console/approvals/${approvalId}`,
        elicitationId,
      },
    ]);
    expect(await decideAll(approver)).toEqual([approvalId]);
    expect(await within(completed, 5_000)).toEqual({ elicitationId });
    const done = await client.callTool(REFUND);
    expect([done.isError, (done.structuredContent as { status: string }).status]).toEqual([false, "succeeded"]);
    // The approved call waits for nobody: no second elicitation.
    expect(asked).toHaveLength(1);
    await client.close();
  });

  it("sends nothing to a client that declared form elicitation only, or none", async () => {
    const cases = [
      { capabilities: { elicitation: {} }, reason: "damaged" },
      { capabilities: {}, reason: "other" },
    ] satisfies Array<{ capabilities: ClientCapabilities; reason: string }>;
    for (const { capabilities, reason } of cases) {
      const { client, asked, completed } = await connect(capabilities);
      const waiting = await client.callTool({ ...REFUND, arguments: { ...REFUND.arguments, reason } });
      expect([waiting.isError, (waiting.structuredContent as { error: { code: string } }).error.code]).toEqual([
        true,
        "APPROVAL_REQUIRED",
      ]);
      expect(asked).toEqual([]);
      await decideAll(approver);
      expect(await within(completed, 300)).toBe("timeout");
      await client.close();
    }
  });
});
