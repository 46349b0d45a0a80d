/**
 * The official MCP SDK client configured as a stock client (Claude, Cursor, VS Code, the
 * Inspector): no tasks capability, no `_meta`. It reads; its write waits for an approval and
 * runs once the approver decided and the model calls again with the same arguments; a retry
 * replays and never runs twice; an identical call 15 minutes after the last runs again, and so
 * do different arguments and another credential's call (docs/mcp.md, "Stock clients").
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { createConsumer, credential, gateFetch, pinClock, wipe } from "../../kit";
import { McpStore } from "../../../src/worker/features/mcp/store";
import { decideAll, MCP, T0 } from "./mcp-server-support";

const ARGS = { order_ref: "ORDER-7", reason: "duplicate" };
let approver: string;

beforeEach(async () => {
  await wipe("tenant-a");
  await createConsumer("tenant-a", ["get_order", "create_refund_draft"], ["rev-1"]);
  await pinClock("tenant-a", T0);
  approver = (await credential("tenant-a", "approver", "rev-1")).secret;
});

async function connect(): Promise<Client> {
  const agent = (await credential("tenant-a", "agent", "user-1")).secret;
  const client = new Client({ name: "stock-client", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`http://localhost${MCP}`), {
    requestInit: { headers: { authorization: `Bearer ${agent}` } },
    fetch: (url, init) => gateFetch(url, init),
  });
  await client.connect(transport);
  return client;
}

interface Seen {
  guidance: unknown;
  isError: boolean | undefined;
  status: unknown;
  code: unknown;
  delivery: unknown;
  approvalId: unknown;
}

async function refund(client: Client, args: Record<string, string> = ARGS): Promise<Seen> {
  const result = await client.callTool({ name: "create_refund_draft", arguments: args });
  const model = result.structuredContent as {
    status: string;
    error: { code: string } | null;
    execution: { delivery: string };
  };
  const content = result.content as Array<{ type: string; text?: string }>;
  return {
    // The first block is the model's guidance when there is one (a wait for an approval), else the result's JSON.
    guidance: content.length > 1 ? content[0]?.text : null,
    isError: result.isError as boolean | undefined,
    status: model.status,
    code: model.error?.code ?? null,
    delivery: model.execution.delivery,
    approvalId: (result._meta as Record<string, unknown> | undefined)?.["io.toolgate/approval_id"] ?? null,
  };
}

const waiting = (approvalId: unknown, guidance: unknown = expect.any(String)) => ({
  guidance,
  isError: true,
  status: "failed",
  code: "APPROVAL_REQUIRED",
  delivery: "fresh",
  approvalId,
});

describe("a stock MCP client (no tasks, no _meta)", () => {
  it("reads, and writes once an approver decided: the call again runs once, every retry replays", async () => {
    const client = await connect();
    const read = await client.callTool({ name: "get_order", arguments: { order_ref: "ORDER-7" } });
    expect([read.isError, (read.structuredContent as { data: unknown }).data]).toEqual([
      false,
      { order_ref: "ORDER-7", status: "paid" },
    ]);

    const first = await refund(client);
    expect(first).toEqual(waiting(expect.stringMatching(/^apr_[0-9a-f]{32}$/)));
    const id = String(first.approvalId);
    expect(first.guidance).toBe(
      `This call waits for a person's approval (approval ${id}). One of this consumer's approvers (rev-1) decides it ` +
        `in the toolgate console at http://localhost/console/approvals/${id}. Once it is approved, call ` +
        "create_refund_draft again with exactly the same arguments within 60 seconds of the decision: it then runs, once. " +
        "Calling it again before the decision answers this same approval; changed arguments are a new call that needs its own approval.",
    );
    // The model asks again before anyone decided: the same call, the same approval.
    expect(await refund(client)).toEqual(first);
    expect(await decideAll(approver)).toEqual([first.approvalId]);

    const ran = await refund(client);
    expect(ran).toEqual({
      guidance: null,
      isError: false,
      status: "succeeded",
      code: null,
      delivery: "fresh",
      approvalId: null,
    });
    const retries = [await refund(client), await refund(client)];
    expect(retries.map((r) => [r.status, r.delivery])).toEqual([
      ["succeeded", "local_replay"],
      ["succeeded", "local_replay"],
    ]);
    // Nothing is left for the approver: the retries asked for no new approval.
    expect(await decideAll(approver)).toEqual([]);
    await client.close();
  });

  it("keeps the key while identical calls come less than 15 minutes apart; after that the call is new", async () => {
    const client = await connect();
    const first = await refund(client);
    await decideAll(approver);
    expect((await refund(client)).delivery).toBe("fresh");
    await pinClock("tenant-a", T0 + 899);
    expect(await refund(client)).toEqual({
      guidance: null,
      isError: false,
      status: "succeeded",
      code: null,
      delivery: "local_replay",
      approvalId: null,
    });
    // 899 s after the last identical call, not after the first: the window slides.
    await pinClock("tenant-a", T0 + 899 + 899);
    expect((await refund(client)).delivery).toBe("local_replay");
    await pinClock("tenant-a", T0 + 899 + 899 + 900);
    const later = await refund(client);
    expect(later).toEqual(waiting(expect.stringMatching(/^apr_[0-9a-f]{32}$/)));
    expect(later.approvalId).not.toBe(first.approvalId);
    await client.close();
  });

  it("never shares a derived key across arguments or credentials", async () => {
    const client = await connect();
    // Another credential of the same subject: its identical call is its own.
    const other = await connect();
    const first = await refund(client);
    const damaged = await refund(client, { ...ARGS, reason: "damaged" });
    const theirs = await refund(other);
    const ids = [first.approvalId, damaged.approvalId, theirs.approvalId];
    expect(ids.map((id) => typeof id === "string" && id.startsWith("apr_"))).toEqual([true, true, true]);
    expect(new Set(ids).size).toBe(3);
    expect((await decideAll(approver)).sort()).toEqual([...ids].sort());
    await client.close();
    await other.close();
  });

  it("keeps at most 256 derived keys per credential, dropping that credential's least recently used, never another's", async () => {
    const stub = env.CONSUMER.get(env.CONSUMER.idFromName("tenant-a"));
    const counts = await runInDurableObject(stub, (_instance, state) => {
      const store = new McpStore(state.storage.sql);
      store.callKey("scope-b", "cred-b", T0, "key-b");
      for (let i = 0; i < 257; i++) store.callKey(`scope-a-${String(i)}`, "cred-a", T0 + i, `key-a-${String(i)}`);
      const rows = state.storage.sql
        .exec<{ credential_id: string; n: number; oldest: string }>(
          "SELECT credential_id, COUNT(*) AS n, MIN(scope) AS oldest FROM mcp_call_keys WHERE scope != 'scope-a-0' OR credential_id = 'cred-a' GROUP BY credential_id ORDER BY credential_id",
        )
        .toArray();
      const first = state.storage.sql.exec("SELECT 1 FROM mcp_call_keys WHERE scope = 'scope-a-0'").toArray().length;
      // The dropped key is a new key when its scope comes back.
      const again = store.callKey("scope-a-0", "cred-a", T0 + 300, "key-a-0-new");
      return { rows: rows.map((r) => [r.credential_id, r.n]), first, again };
    });
    expect(counts).toEqual({
      rows: [
        ["cred-a", 256],
        ["cred-b", 1],
      ],
      first: 0,
      again: "key-a-0-new",
    });
  });
});
