/**
 * Black box: `toolgate admin …` (the built bin, spawned) against the real gate as `npm start`
 * serves it (its strict local edge before `wrangler dev`): every command's human output line by line,
 * its `--json` output, and the refusals (a missing, wrong or wrong-kind token: exit 2 naming the
 * variable, the token never echoed; a problem: exit 1 with its title, code and detail).
 */
import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { readFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCli } from "../../tools/lib/build-cli";
import { startLocalEdge } from "../../tools/lib/local-edge";
import { freePort, startDev, type DevServer } from "./wrangler-dev";

const ROOT = resolve(__dirname, "..", "..");
const BIN = join(ROOT, "bin", "toolgate.js");
const ADMIN = randomBytes(24).toString("base64url");
// The reference's demo orders belong to tenant "tenant-a": its write opens approvals.
const SHOP = "tenant-a";
const OTHER = "cli-extra";
const REFUND = { order_ref: "ORDER-7", reason: "duplicate" };

let dir: string;
let dev: DevServer;
/** `npm start`'s front: the strict local edge before wrangler dev; the commands go through it. */
let edge: { port: number; close(): Promise<void> };
let gateUrl: string;
let receiver: Server;
let receiverUrl: string;
const received: Array<{ path: string; body: string }> = [];

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Spawns `node bin/toolgate.js admin …` with only PATH, the gate's URL and `env` in its environment. */
function toolgate(args: string[], env: Record<string, string> = {}, stdin = ""): Promise<Run> {
  return new Promise((done, reject) => {
    const child = spawn(process.execPath, [BIN, "admin", ...args], {
      env: { PATH: process.env.PATH ?? "", TOOLGATE_URL: gateUrl, ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (status) => done({ status, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

/** The gate over plain HTTP: the independent view each command's output is compared with. */
async function api(
  method: string,
  path: string,
  token: string | null,
  body?: unknown,
): Promise<{ status: number; json: any; text: string }> {
  const res = await fetch(`${dev.base}${path}`, {
    method,
    headers: {
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const json =
    /^application\/(problem\+)?json/.test(res.headers.get("content-type") ?? "") && text !== ""
      ? JSON.parse(text)
      : null;
  return { status: res.status, text, json };
}

/** Every item of a cursor list, over plain HTTP. */
async function allPages(path: string, key: string, token: string): Promise<any[]> {
  const items: any[] = [];
  let cursor: string | null = null;
  do {
    const page: { json: any } = await api(
      "GET",
      `${path}${cursor === null ? "" : `${path.includes("?") ? "&" : "?"}cursor=${encodeURIComponent(cursor)}`}`,
      token,
    );
    items.push(...page.json[key]);
    cursor = page.json.next_cursor;
  } while (cursor !== null);
  return items;
}

const iso = (seconds: number) => `${new Date(seconds * 1000).toISOString().slice(0, 19)}Z`;
/** JavaScript's canonical JSON for strings, integers, booleans, null, arrays and objects (docs/approvals.md). */
const canonical = (v: unknown): string =>
  v === null || typeof v !== "object"
    ? JSON.stringify(v)
    : Array.isArray(v)
      ? `[${v.map(canonical).join(",")}]`
      : `{${Object.keys(v)
          .sort()
          .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
          .join(",")}}`;
const clip60 = (text: string) => ([...text].length <= 60 ? text : `${[...text].slice(0, 59).join("")}…`);
const lines = (...rows: string[]) => `${rows.join("\n")}\n`;
const admin = { TOOLGATE_ADMIN_TOKEN: ADMIN };
const shop = { ...admin, TOOLGATE_CONSUMER: SHOP };

function bodyOf(req: IncomingMessage): Promise<string> {
  return new Promise((done) => {
    let text = "";
    req.on("data", (d: Buffer) => (text += d.toString()));
    req.on("end", () => done(text));
  });
}

beforeAll(async () => {
  await buildCli();
  dir = mkdtempSync(join(tmpdir(), "toolgate-admin-cli-"));
  receiver = createServer(async (req, res) => {
    received.push({ path: req.url ?? "", body: await bodyOf(req) });
    res.writeHead(204).end();
  });
  await new Promise<void>((done) => receiver.listen(0, "127.0.0.1", done));
  const address = receiver.address();
  receiverUrl = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}/hooks`;
  dev = await startDev(join(dir, "state"), ADMIN, {
    logFile: join(dir, "wrangler.log"),
    vars: { TOOLGATE_SECRETS_KEY: randomBytes(32).toString("base64url"), TOOLGATE_ALLOW_LOOPBACK_TARGETS: "1" },
  });
  edge = await startLocalEdge({ target: { host: "127.0.0.1", port: Number(new URL(dev.base).port) } });
  gateUrl = `http://127.0.0.1:${edge.port}`;
}, 180_000);

afterAll(async () => {
  await edge?.close();
  await dev?.kill();
  await new Promise((done) => receiver?.close(done));
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe("refusals", () => {
  it("a missing, wrong or wrong-kind token: exit 2, one line naming the variable, the token never echoed", async () => {
    const missing = await toolgate(["consumers", "list"]);
    expect(missing).toEqual({
      status: 2,
      stdout: "",
      stderr:
        "toolgate admin consumers list: TOOLGATE_ADMIN_TOKEN is not set (tokens are read from the environment only, never from a flag)\n",
    });

    const wrong = "not-the-admin-token-7f3a9c21d0";
    for (const args of [
      ["consumers", "list"],
      ["consumers", "list", "--json"],
    ]) {
      expect(await toolgate(args, { TOOLGATE_ADMIN_TOKEN: wrong })).toEqual({
        status: 2,
        stdout: "",
        stderr: `toolgate admin consumers list: the gate refused the token in TOOLGATE_ADMIN_TOKEN: Unauthorized (401 UNAUTHENTICATED): Missing or invalid credential.\n`,
      });
    }
    const approver = "tg_approver_AAAAAAAAAAAAAAAA_notarealtoken0000";
    const refused = await toolgate(["approvals", "list", "--consumer", SHOP], { TOOLGATE_APPROVER_TOKEN: approver });
    expect(refused).toEqual({
      status: 2,
      stdout: "",
      stderr:
        "toolgate admin approvals list: the gate refused the token in TOOLGATE_APPROVER_TOKEN: Unauthorized (401 UNAUTHENTICATED): Missing or invalid credential.\n",
    });
    for (const run of [refused, await toolgate(["consumers", "list"], { TOOLGATE_ADMIN_TOKEN: wrong })]) {
      expect(run.stdout.includes(wrong) || run.stderr.includes(wrong) || run.stderr.includes(approver)).toBe(false);
    }
  });

  it("a usage error exits 2 with the verb's usage; a problem of the gate exits 1 with its title, code and detail", async () => {
    expect(await toolgate(["consumers", "create"], admin)).toEqual({
      status: 2,
      stdout: "",
      stderr:
        "toolgate admin consumers create: wrong number of arguments\nusage: toolgate admin consumers create NAME --config FILE\n",
    });
    expect(await toolgate(["consumers", "list", "--token", ADMIN], admin)).toEqual({
      status: 2,
      stdout: "",
      stderr: "toolgate admin consumers list: unrecognized option --token\nusage: toolgate admin consumers list\n",
    });
    expect(await toolgate(["credentials", "list"], admin)).toEqual({
      status: 2,
      stdout: "",
      stderr: "toolgate admin credentials list: name the consumer with --consumer NAME or TOOLGATE_CONSUMER\n",
    });
    expect(await toolgate(["consumers", "show", "nobody"], admin)).toEqual({
      status: 1,
      stdout: "",
      stderr: "toolgate admin consumers show: GET /v1/consumers/nobody: Not found (404 NOT_FOUND): No such consumer.\n",
    });
    const closed = `http://127.0.0.1:${await freePort()}`;
    const nowhere = await toolgate(["consumers", "list", "--url", closed], admin);
    expect([nowhere.status, nowhere.stdout, nowhere.stderr]).toEqual([
      1,
      "",
      `toolgate admin consumers list: cannot reach ${closed} (ECONNREFUSED)\n`,
    ]);
  });
});

describe("help", () => {
  it("lists every command of every group (exit 0); no group is a usage error (exit 2)", async () => {
    const help = await toolgate(["--help"]);
    expect([help.status, help.stderr, help.stdout.split("commands:\n")[1]]).toEqual([
      0,
      "",
      lines(
        "  toolgate admin consumers create NAME --config FILE",
        "  toolgate admin consumers show NAME",
        "  toolgate admin consumers list",
        "  toolgate admin tools put NAME --file FILE",
        "  toolgate admin tools list",
        "  toolgate admin tools show NAME",
        "  toolgate admin tools enable NAME",
        "  toolgate admin tools disable NAME",
        "  toolgate admin tools delete NAME   (a data-defined tool: its definition withdrawn, its history kept)",
        "  toolgate admin tools shadow NAME   (the shadow rules' counts and kept disagreements)",
        "  toolgate admin tools replay NAME --definition FILE [--limit N]   (N ≤ 500, newest calls first)",
        "  toolgate admin secrets put NAME   (the value from TOOLGATE_SECRET_VALUE or standard input)",
        "  toolgate admin secrets list",
        "  toolgate admin secrets delete NAME   (tools whose headers use it send nothing until it is put again)",
        "  toolgate admin credentials issue --kind agent|approver|provider|runtime|auditor [--subject S] [--principal subject|host|token] [--role R]... [--tool T]... [--expires-at UNIX_SECONDS]",
        "  toolgate admin credentials list",
        "  toolgate admin credentials revoke ID",
        "  toolgate admin approvals list",
        "  toolgate admin approvals show ID",
        "  toolgate admin approvals decide ID approve --digest HEX [--reason TEXT] | decide ID edit --digest HEX --arguments JSON [--reason TEXT] | decide ID deny [--reason TEXT]",
        "  toolgate admin approvals standing grant TOOL SUBJECT --seconds N --calls N [--constraint CEL]",
        "  toolgate admin approvals standing list",
        "  toolgate admin approvals standing revoke ID",
        "  toolgate admin audit tail [--n N]",
        "  toolgate admin audit call CALL_ID",
        "  toolgate admin audit export --out FILE [--progress-every N]",
        "  toolgate admin audit verify --export FILE [--checkpoint SAVED_FILE]...",
        "  toolgate admin webhooks create --url URL [--events TYPE,TYPE...] [--include-arguments] [--description TEXT]   (the gate: --gate URL or TOOLGATE_URL)",
        "  toolgate admin webhooks list",
        "  toolgate admin webhooks delete ID",
        "  toolgate admin webhooks deliveries [--endpoint ID]",
        "  toolgate admin webhooks redeliver DELIVERY_ID",
      ),
    ]);
    const bare = await toolgate([]);
    expect([bare.status, bare.stdout, bare.stderr]).toEqual([2, "", help.stdout]);
  });
});

describe("consumers", () => {
  it("create, show and list, as tables and as JSON", async () => {
    const config = join(dir, "shop.json");
    writeFileSync(
      config,
      JSON.stringify({
        tools: ["get_order", "create_refund_draft"],
        approver_subjects: ["rev-1"],
        limits: { page_items: 2, calls_per_second: 1000, call_burst: 1000 },
      }),
    );
    const limits =
      "call_burst=1000 calls_per_second=1000 outbox_batch_events=100 outbox_max_bytes=1048576 outbox_max_events=1000 page_items=2 pending_approvals_per_credential=100 pending_approvals_per_subject=20 retention_seconds=86400 socket_message_bytes=65536 socket_messages_per_second=50 sockets_per_credential=4";
    expect(await toolgate(["consumers", "create", SHOP, "--config", config], admin)).toEqual({
      status: 0,
      stderr: "",
      stdout: lines(
        "consumer:   tenant-a",
        "stored:     created",
        "tools:      create_refund_draft, get_order",
        "approvers:  rev-1",
        "tokens:     none",
        `limits:     ${limits}`,
      ),
    });
    const other = join(dir, "other.json");
    writeFileSync(other, JSON.stringify({ tools: [], approver_subjects: [] }));
    const created = await toolgate(["consumers", "create", OTHER, "--config", other, "--json"], admin);
    expect([created.status, created.stderr, JSON.parse(created.stdout)]).toEqual([
      0,
      "",
      {
        consumer: OTHER,
        tools: [],
        approver_subjects: [],
        principal_tokens: null,
        limits: {
          calls_per_second: 50,
          call_burst: 100,
          pending_approvals_per_subject: 20,
          pending_approvals_per_credential: 100,
          outbox_max_events: 1000,
          outbox_max_bytes: 1048576,
          outbox_batch_events: 100,
          sockets_per_credential: 4,
          socket_message_bytes: 65536,
          socket_messages_per_second: 50,
          page_items: 100,
          retention_seconds: 86400,
        },
        created: true,
      },
    ]);
    expect(await toolgate(["consumers", "show", SHOP], admin)).toEqual({
      status: 0,
      stderr: "",
      stdout: lines(
        "consumer:   tenant-a",
        "tools:      create_refund_draft, get_order",
        "approvers:  rev-1",
        "tokens:     none",
        `limits:     ${limits}`,
      ),
    });
    const shown = await toolgate(["consumers", "show", SHOP, "--json"], admin);
    expect(JSON.parse(shown.stdout)).toEqual((await api("GET", `/v1/consumers/${SHOP}`, ADMIN)).json);

    const directory = (await api("GET", "/v1/consumers", ADMIN)).json.consumers as Array<{
      consumer: string;
      created_at: number;
    }>;
    expect(directory.map((c) => c.consumer)).toEqual([OTHER, SHOP]);
    expect(await toolgate(["consumers", "list"], admin)).toEqual({
      status: 0,
      stderr: "",
      stdout: lines(
        "CONSUMER   CREATED",
        `cli-extra  ${iso(directory[0]?.created_at ?? 0)}`,
        `tenant-a   ${iso(directory[1]?.created_at ?? 0)}`,
      ),
    });
    const listed = await toolgate(["consumers", "list", "--json"], admin);
    expect(JSON.parse(listed.stdout)).toEqual(directory);
  });
});

describe("tools and secrets", () => {
  const LOOKUP = {
    description: "Look up a customer: name, tier and open balance in cents.",
    risk: "read",
    timeout_ms: 3000,
    input: {
      type: "object",
      properties: { customer: { type: "string", pattern: "^[a-z][a-z0-9-]*$", maxLength: 32 } },
      required: ["customer"],
      additionalProperties: false,
    },
    output: {
      schema: {
        type: "object",
        properties: { customer: { type: "string" }, tier: { type: "string", enum: ["gold", "silver"] } },
        required: ["customer", "tier"],
        additionalProperties: false,
      },
      bound_to_arguments: { customer: "customer" },
    },
    authorize: '"support" in principal.roles',
    target: { kind: "http", url: "http://127.0.0.1:9/customers/lookup" },
  };

  it("tools put (a new version each change), list and show", async () => {
    const file = join(dir, "lookup.json");
    writeFileSync(file, JSON.stringify(LOOKUP));
    const put = await toolgate(["tools", "put", "lookup_customer", "--file", file, "--consumer", OTHER], admin);
    const first = (await api("GET", `/v1/consumers/${OTHER}/tools/lookup_customer`, ADMIN)).json.history[0];
    const revisions = ["effect", "handler", "input", "output", "policy"]
      .map((k) => `${k}=${first.revisions[k]}`)
      .join(" ");
    expect(Object.keys(first.revisions).sort()).toEqual(["effect", "handler", "input", "output", "policy"]);
    expect(put).toEqual({
      status: 0,
      stderr: "",
      stdout: lines(
        "tool:       lookup_customer",
        "version:    1",
        `defined:    ${iso(first.defined_at)}`,
        `revisions:  ${revisions}`,
      ),
    });

    writeFileSync(file, JSON.stringify({ ...LOOKUP, description: "Look up a customer's tier." }));
    const second = await toolgate(
      ["tools", "put", "lookup_customer", "--file", file, "--consumer", OTHER, "--json"],
      admin,
    );
    const stored = (await api("GET", `/v1/consumers/${OTHER}/tools/lookup_customer`, ADMIN)).json;
    expect([second.status, JSON.parse(second.stdout)]).toEqual([0, stored.history[0]]);
    expect(stored.history[0].version).toBe(2);

    expect(await toolgate(["tools", "list", "--consumer", OTHER], admin)).toEqual({
      status: 0,
      stderr: "",
      stdout: lines("TOOL             VERSION  STATE", "lookup_customer  2        disabled"),
    });
    expect(await toolgate(["tools", "list"], shop)).toEqual({
      status: 0,
      stderr: "",
      stdout: lines(
        "TOOL                 VERSION   STATE",
        "create_refund_draft  built-in  enabled",
        "get_order            built-in  enabled",
      ),
    });
    const listed = await toolgate(["tools", "list", "--json"], shop);
    expect(JSON.parse(listed.stdout)).toEqual({
      enabled: ["create_refund_draft", "get_order"],
      defined: [],
      next_cursor: null,
    });

    const shown = await toolgate(["tools", "show", "lookup_customer", "--consumer", OTHER], admin);
    const [head, definition] = shown.stdout.split("definition:\n");
    expect([shown.status, head]).toEqual([
      0,
      lines(
        "tool:         lookup_customer",
        "version:      2",
        "state:        disabled",
        "risk:         read",
        "description:  Look up a customer's tier.",
        `history:      v2 ${iso(stored.history[0].defined_at)}, v1 ${iso(stored.history[1].defined_at)}`,
      ),
    ]);
    expect(JSON.parse(definition ?? "")).toEqual(stored.history[0].definition);
    const shownJson = await toolgate(["tools", "show", "lookup_customer", "--consumer", OTHER, "--json"], admin);
    expect(JSON.parse(shownJson.stdout)).toEqual(stored);
    expect((await toolgate(["tools", "show", "no_such_tool", "--consumer", OTHER], admin)).stderr).toBe(
      "toolgate admin tools show: GET /v1/consumers/cli-extra/tools/no_such_tool: Not found (404 NOT_FOUND): No such tool.\n",
    );
  });

  it("secrets put (from the environment or standard input, never a flag) and list; a value is never printed", async () => {
    const fromEnv = "env-secret-value-5d1e";
    const piped = "piped-secret-value-9c4b";
    const runs = [
      await toolgate(["secrets", "put", "billing_token"], { ...shop, TOOLGATE_SECRET_VALUE: fromEnv }),
      await toolgate(["secrets", "put", "other_token"], shop, `${piped}\n`),
      await toolgate(["secrets", "put", "third_token", "--json"], { ...shop, TOOLGATE_SECRET_VALUE: fromEnv }),
    ];
    expect(runs.map((r) => [r.status, r.stdout, r.stderr])).toEqual([
      [0, "stored secret billing_token\n", ""],
      [0, "stored secret other_token\n", ""],
      [0, '{"secret":"third_token","stored":true}\n', ""],
    ]);
    expect(await toolgate(["secrets", "put", "empty_token"], shop, "")).toEqual({
      status: 2,
      stdout: "",
      stderr:
        "toolgate admin secrets put: the value is empty: set TOOLGATE_SECRET_VALUE or pipe the value into standard input\n",
    });
    // The gate answers pages of the consumer's page_items (2 here); the CLI walks every page.
    const firstPage = (await api("GET", `/v1/consumers/${SHOP}/secrets`, ADMIN)).json;
    expect([firstPage.secrets, typeof firstPage.next_cursor]).toEqual([["billing_token", "other_token"], "string"]);
    const list = await toolgate(["secrets", "list"], shop);
    expect(list).toEqual({
      status: 0,
      stderr: "",
      stdout: lines("SECRET", "billing_token", "other_token", "third_token"),
    });
    expect(JSON.parse((await toolgate(["secrets", "list", "--json"], shop)).stdout)).toEqual({
      secrets: ["billing_token", "other_token", "third_token"],
      next_cursor: null,
    });
    for (const run of [...runs, list])
      expect(run.stdout.includes(fromEnv) || run.stdout.includes(piped) || run.stderr.includes(fromEnv)).toBe(false);
  });
});

let approverToken = "";
let agentToken = "";
let auditorToken = "";

describe("credentials", () => {
  const idOf = (out: string) => /^credential: +(cred_[0-9A-Za-z]{16})$/m.exec(out)?.[1] ?? "";
  const secretOf = (out: string) => /^secret: +(tg_\S+)$/m.exec(out)?.[1] ?? "";
  const NOTE = "The secret is shown this once: store it now (the gate keeps only its SHA-256).";

  it("issue (the secret printed once, labelled), list every page, revoke", async () => {
    const approver = await toolgate(["credentials", "issue", "--kind", "approver", "--subject", "rev-1"], shop);
    approverToken = secretOf(approver.stdout);
    const approverId = idOf(approver.stdout);
    expect(approver).toEqual({
      status: 0,
      stderr: "",
      stdout: lines(
        `credential:  ${approverId}`,
        "kind:        approver",
        "subject:     rev-1",
        "expires:     never",
        `secret:      ${approverToken}`,
        NOTE,
      ),
    });
    expect((await api("GET", `/v1/consumers/${SHOP}/approvals`, approverToken)).status).toBe(200);

    const scoped = await toolgate(
      [
        "credentials",
        "issue",
        "--kind",
        "agent",
        "--subject",
        "user-1",
        "--role",
        "support",
        "--role",
        "admin",
        "--tool",
        "get_order",
      ],
      shop,
    );
    const scopedId = idOf(scoped.stdout);
    expect(scoped.stdout).toBe(
      lines(
        `credential:  ${scopedId}`,
        "kind:        agent",
        "subject:     user-1",
        "principal:   subject",
        "roles:       admin, support",
        "tools:       get_order",
        "expires:     never",
        `secret:      ${secretOf(scoped.stdout)}`,
        NOTE,
      ),
    );

    const auditor = await toolgate(["credentials", "issue", "--kind", "auditor", "--expires-at", "4102444800"], shop);
    auditorToken = secretOf(auditor.stdout);
    expect(auditor.stdout).toBe(
      lines(
        `credential:  ${idOf(auditor.stdout)}`,
        "kind:        auditor",
        "subject:     -",
        "expires:     2100-01-01T00:00:00Z",
        `secret:      ${auditorToken}`,
        NOTE,
      ),
    );

    const host = await toolgate(["credentials", "issue", "--kind", "agent", "--json"], shop);
    const hostJson = JSON.parse(host.stdout);
    agentToken = hostJson.secret;
    expect([host.status, hostJson]).toEqual([
      0,
      {
        credential_id: hostJson.credential_id,
        secret: agentToken,
        kind: "agent",
        subject_id: null,
        principal: "host",
        roles: [],
        tools: null,
        expires_at: null,
      },
    ]);
    expect([/^cred_[0-9A-Za-z]{16}$/.test(hostJson.credential_id), agentToken.startsWith("tg_agent_")]).toEqual([
      true,
      true,
    ]);

    expect(await toolgate(["credentials", "revoke", scopedId], shop)).toEqual({
      status: 0,
      stderr: "",
      stdout: `revoked credential ${scopedId}\n`,
    });
    expect(await toolgate(["credentials", "revoke", scopedId, "--json"], shop)).toEqual({
      status: 1,
      stdout: "",
      stderr: `toolgate admin credentials revoke: DELETE /v1/consumers/tenant-a/credentials/${scopedId}: Not found (404 NOT_FOUND): No such credential.\n`,
    });

    // Four credentials at page_items 2: two pages, walked.
    const raw = await allPages(`/v1/consumers/${SHOP}/credentials`, "credentials", ADMIN);
    expect(raw.map((c) => c.credential_id)).toEqual([
      approverId,
      scopedId,
      idOf(auditor.stdout),
      hostJson.credential_id,
    ]);
    const row = (c: any, kind: string, subject: string, expires: string, revoked: string) =>
      `${c.credential_id}  ${kind.padEnd(8)}  ${subject.padEnd(7)}  ${iso(c.created_at)}  ${expires.padEnd(20)}  ${revoked}`;
    expect(await toolgate(["credentials", "list"], shop)).toEqual({
      status: 0,
      stderr: "",
      stdout: lines(
        `ID                     KIND      SUBJECT  CREATED               EXPIRES               REVOKED`,
        row(raw[0], "approver", "rev-1", "never", "-"),
        row(raw[1], "agent", "user-1", "never", iso(raw[1].revoked_at)),
        row(raw[2], "auditor", "-", "2100-01-01T00:00:00Z", "-"),
        row(raw[3], "agent", "-", "never", "-"),
      ),
    });
    const listed = await toolgate(["credentials", "list", "--json"], shop);
    expect(JSON.parse(listed.stdout)).toEqual(raw);
    for (const secret of [approverToken, agentToken, auditorToken]) expect(listed.stdout.includes(secret)).toBe(false);
    expect(await toolgate(["credentials", "issue", "--kind", "root"], shop)).toEqual({
      status: 2,
      stdout: "",
      stderr: "toolgate admin credentials issue: --kind is one of agent, approver, provider, runtime, auditor\n",
    });
  });
});

/** One agent call of the write tool; answers the gate's answer. */
async function refundCall(n: number, reason = "duplicate"): Promise<any> {
  const context = {
    call_id: `call-${n}`,
    operation_id: `op-${n}`,
    idempotency_key: `idem-${n}`,
    provider: "openai",
    api_family: "responses",
    response_id: "r-1",
    adapter_revision: "openai-responses-v1",
  };
  const body = {
    principal: { subject_id: "user-1", roles: [] },
    proposal: { name: "create_refund_draft", arguments: { ...REFUND, reason } },
    context,
  };
  return (await api("POST", `/v1/consumers/${SHOP}/tool-calls`, agentToken, body)).json;
}

const APPROVAL_FIELDS = [
  "provider",
  "api_family",
  "adapter_revision",
  "operation_id",
  "call_id",
  "response_id",
  "idempotency_key",
  "request_sha256",
  "input_schema_revision",
  "output_schema_revision",
  "effect_revision",
  "approval_revision",
  "approver_id",
];
const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");
const pick = (view: Record<string, unknown>, keys: string[]) => Object.fromEntries(keys.map((k) => [k, view[k]]));

describe("approvals", () => {
  const approver = () => ({ TOOLGATE_APPROVER_TOKEN: approverToken, TOOLGATE_CONSUMER: SHOP });
  /** The lines `decide` prints before it sends the decision. */
  const preview = (v: any) =>
    lines(
      `approval:   ${v.approval_id}`,
      "tool:       create_refund_draft",
      "subject:    user-1",
      `arguments:  ${canonical(v.arguments)}`,
      `call:       openai ${v.call_id} (operation ${v.operation_id}, key ${v.idempotency_key})`,
      `expires:    ${iso(v.expires_at)}`,
      `digest:     ${v.approval_digest} (recomputed from the fields shown)`,
    );

  it("list walks every page; decide checks the digests, shows what it approves, and the call then runs", async () => {
    const ids = [];
    for (const [n, reason] of [
      [1, "duplicate"],
      [2, "damaged"],
      [3, "other"],
    ] as const)
      ids.push((await refundCall(n, reason)).approval_id as string);
    const views = await allPages(`/v1/consumers/${SHOP}/approvals?state=pending`, "approvals", approverToken);
    expect(views.map((v) => v.approval_id)).toEqual(ids);
    // The digest the CLI recomputes, computed here independently.
    for (const v of views) expect(sha256(canonical(pick(v, APPROVAL_FIELDS)))).toBe(v.approval_digest);

    const row = (v: any) =>
      `${v.approval_id}  create_refund_draft  user-1   ${iso(v.requested_at)}  ${iso(v.expires_at)}  ${v.approval_digest.slice(0, 12)}  ${clip60(canonical(v.arguments))}`;
    expect(await toolgate(["approvals", "list"], approver())).toEqual({
      status: 0,
      stderr: "",
      stdout: lines(
        `ID${" ".repeat(34)}  TOOL                 SUBJECT  REQUESTED             EXPIRES               DIGEST        ARGUMENTS`,
        ...views.map(row),
      ),
    });
    expect(JSON.parse((await toolgate(["approvals", "list", "--json"], approver())).stdout)).toEqual(views);
    // show prints the whole approval (arguments unclipped) and sends nothing.
    expect(await toolgate(["approvals", "show", ids[0] as string], approver())).toEqual({
      status: 0,
      stderr: "",
      stdout: preview(views[0]),
    });

    // An approval names the digest its approver reviewed: without one, or with another, nothing is sent.
    const unnamed = await toolgate(["approvals", "decide", ids[0] as string, "approve"], approver());
    expect(unnamed).toEqual({
      status: 2,
      stdout: "",
      stderr: `toolgate admin approvals decide: approve names the digest you reviewed: \`toolgate admin approvals show ${ids[0]}\` prints the approval in full, then add --digest and its first 12 or more hex digits\n`,
    });
    const otherDigest = views[1].approval_digest.slice(0, 12);
    expect(
      await toolgate(["approvals", "decide", ids[0] as string, "approve", "--digest", otherDigest], approver()),
    ).toEqual({
      status: 1,
      stdout: "",
      stderr: `toolgate admin approvals decide: approval ${ids[0]} has digest ${views[0].approval_digest}, not the ${otherDigest}… you reviewed: nothing was submitted\n`,
    });
    expect(
      (await allPages(`/v1/consumers/${SHOP}/approvals?state=pending`, "approvals", approverToken)).map(
        (v) => v.approval_id,
      ),
    ).toEqual(ids);

    const approved = await toolgate(
      ["approvals", "decide", ids[0] as string, "approve", "--digest", views[0].approval_digest.slice(0, 12)],
      approver(),
    );
    const decisionLine = /^decision:   approved by rev-1 at (\S+Z), valid until (\S+Z)$/m.exec(approved.stdout);
    expect([approved.status, approved.stderr, approved.stdout]).toEqual([
      0,
      "",
      `${preview(views[0])}${decisionLine?.[0]}\n`,
    ]);
    expect((Date.parse(decisionLine?.[2] ?? "") - Date.parse(decisionLine?.[1] ?? "")) / 1000).toBe(60);
    const ran = await refundCall(1, "duplicate");
    expect([ran.model_result.status, ran.model_result.data]).toEqual([
      "succeeded",
      { draft_id: "DRAFT-1", order_ref: "ORDER-7", reason: "duplicate" },
    ]);

    const denied = await toolgate(["approvals", "decide", ids[1] as string, "deny", "--json"], approver());
    const decision = JSON.parse(denied.stdout);
    expect([denied.status, denied.stderr, decision]).toEqual([
      0,
      preview(views[1]),
      {
        approval_id: ids[1],
        state: "denied",
        approver_id: "rev-1",
        decided_at: decision.decided_at,
        valid_until: null,
        bound_to_request: true,
      },
    ]);
    expect(
      (await allPages(`/v1/consumers/${SHOP}/approvals?state=pending`, "approvals", approverToken)).map(
        (v) => v.approval_id,
      ),
    ).toEqual([ids[2]]);

    const gone = `apr_${"0".repeat(32)}`;
    expect(await toolgate(["approvals", "decide", gone, "approve", "--digest", "0".repeat(12)], approver())).toEqual({
      status: 1,
      stdout: "",
      stderr: `toolgate admin approvals decide: no pending approval ${gone} (decided, expired, withdrawn or never opened)\n`,
    });
    expect((await toolgate(["approvals", "decide", ids[2] as string, "maybe"], approver())).stderr).toBe(
      "toolgate admin approvals decide: the decision is approve, edit or deny, not maybe\n",
    );
  });

  it("decide refuses a view whose fields do not hash to its digests, and sends nothing", async () => {
    const [view] = await allPages(`/v1/consumers/${SHOP}/approvals?state=pending`, "approvals", approverToken);
    const posts: string[] = [];
    let answer: unknown = null;
    // A gate that shows edited fields with the genuine digests.
    const fake = createServer(async (req, res) => {
      if (req.method === "POST") posts.push(req.url ?? "");
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
    });
    await new Promise<void>((done) => fake.listen(0, "127.0.0.1", done));
    const address = fake.address();
    const url = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`;
    try {
      const cases = [
        [
          { ...view, arguments: { ...view.arguments, order_ref: "ORDER-8" } },
          "request_sha256 does not match the tenant, subject, tool and arguments shown: nothing was submitted",
        ],
        [{ ...view, call_id: "call-99" }, "approval_digest does not match the fields shown: nothing was submitted"],
      ] as const;
      for (const [shown, message] of cases) {
        answer = { approvals: [shown], next_cursor: null };
        expect(
          await toolgate(
            ["approvals", "decide", view.approval_id, "approve", "--digest", view.approval_digest, "--url", url],
            approver(),
          ),
        ).toEqual({ status: 1, stdout: "", stderr: `toolgate admin approvals decide: ${message}\n` });
      }
    } finally {
      await new Promise((done) => fake.close(done));
    }
    expect(posts).toEqual([]);
  });

  it("standing grant, list and revoke: a grant covers the next call without a decision, until revoked", async () => {
    const patched = await fetch(`${dev.base}/v1/consumers/${SHOP}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/merge-patch+json" },
      body: JSON.stringify({ standing_approvals: { tools: ["create_refund_draft"], max_seconds: 600, max_calls: 2 } }),
    });
    expect(patched.status).toBe(200);
    const constraint = 'args.reason == "damaged"';
    const granted = await toolgate(
      ["approvals", "standing", "grant", "create_refund_draft", "user-1", "--seconds", "600", "--calls", "2"].concat([
        "--constraint",
        constraint,
        "--json",
      ]),
      approver(),
    );
    const view = JSON.parse(granted.stdout);
    expect([granted.status, granted.stderr, view.state, view.subject_id, view.used_calls, view.constraint]).toEqual([
      0,
      "",
      "active",
      "user-1",
      0,
      constraint,
    ]);
    const covered = await refundCall(41, "damaged");
    expect([covered.model_result.status, covered.approval_id]).toEqual(["succeeded", undefined]);
    const id = view.standing_approval_id as string;
    const widths = [36, 6, 19, 7, 5, 20];
    const cells = (row: string[]) =>
      [...row.slice(0, 6).map((cell, i) => cell.padEnd(widths[i] as number)), row[6]].join("  ");
    expect(await toolgate(["approvals", "standing", "list"], approver())).toEqual({
      status: 0,
      stderr: "",
      stdout: lines(
        cells(["ID", "STATE", "TOOL", "SUBJECT", "CALLS", "UNTIL", "CONSTRAINT"]),
        cells([id, "active", "create_refund_draft", "user-1", "1/2", iso(view.expires_at), constraint]),
      ),
    });
    const revoked = await toolgate(["approvals", "standing", "revoke", id], approver());
    expect([revoked.status, revoked.stderr, /^state:\s+revoked$/m.test(revoked.stdout)]).toEqual([0, "", true]);
    expect(/^revoked:\s+by rev-1 at \S+Z$/m.test(revoked.stdout)).toBe(true);
    expect((await refundCall(42, "damaged")).model_result.error.code).toBe("APPROVAL_REQUIRED");
    expect(await toolgate(["approvals", "standing", "revoke", "sta_x"], approver())).toEqual({
      status: 2,
      stdout: "",
      stderr: "toolgate admin approvals standing revoke: not a standing approval id (sta_ and 32 hex digits): sta_x\n",
    });
  });
});

describe("audit", () => {
  const auditor = () => ({ TOOLGATE_AUDITOR_TOKEN: auditorToken, TOOLGATE_CONSUMER: SHOP });

  it("tail shows the newest entries; a credential of another kind is refused (exit 2)", async () => {
    const entries = await allPages(`/v1/consumers/${SHOP}/audit`, "entries", auditorToken);
    expect(entries.map((e) => e.seq)).toEqual(entries.map((_, i) => i + 1));
    const last = entries.slice(-3);
    const seqWidth = Math.max(3, ...last.map((e) => String(e.seq).length));
    const kindWidth = Math.max(4, ...last.map((e) => e.kind.length));
    const row = (e: any) =>
      `${String(e.seq).padEnd(seqWidth)}  ${iso(e.at)}  ${e.kind.padEnd(kindWidth)}  ${clip60(canonical(e.record))}`;
    expect(await toolgate(["audit", "tail", "--n", "3"], auditor())).toEqual({
      status: 0,
      stderr: "",
      stdout: lines(
        `${"SEQ".padEnd(seqWidth)}  AT                    ${"KIND".padEnd(kindWidth)}  RECORD`,
        ...last.map(row),
      ),
    });
    expect(JSON.parse((await toolgate(["audit", "tail", "--n", "3", "--json"], auditor())).stdout)).toEqual(last);
    expect(JSON.parse((await toolgate(["audit", "tail", "--json"], auditor())).stdout)).toEqual(entries.slice(-20));
    expect(JSON.parse((await toolgate(["audit", "tail", "--n", "1000", "--json"], auditor())).stdout)).toEqual(entries);

    const asAgent = await toolgate(["audit", "tail"], { TOOLGATE_AUDITOR_TOKEN: agentToken, TOOLGATE_CONSUMER: SHOP });
    expect(asAgent).toEqual({
      status: 2,
      stdout: "",
      stderr:
        "toolgate admin audit tail: the gate refused the token in TOOLGATE_AUDITOR_TOKEN: Forbidden (403 FORBIDDEN): A agent credential may not call this route.\n",
    });
    expect(asAgent.stderr.includes(agentToken)).toBe(false);
  });

  it("export streams to a file with progress lines; verify checks it with the published key", async () => {
    const raw = await api("GET", `/v1/consumers/${SHOP}/audit/export`, auditorToken);
    const file = join(dir, "audit.ndjson");
    const run = await toolgate(["audit", "export", "--out", file, "--progress-every", "5"], auditor());
    const text = readFileSync(file, "utf8");
    expect(text).toBe(raw.text);
    const rows = text.split("\n").slice(0, -1);
    const entries = rows.length - 1;
    const progress = rows
      .slice(0, entries)
      .flatMap((_, i) =>
        (i + 1) % 5 === 0
          ? [
              `toolgate admin audit export: ${i + 1} entries, ${Buffer.byteLength(rows.slice(0, i + 1).join("\n")) + 1} bytes`,
            ]
          : [],
      );
    expect(entries).toBeGreaterThan(5);
    expect(run).toEqual({
      status: 0,
      stderr: lines(...progress),
      stdout: `exported ${entries} entries and their signed checkpoint to ${file} (${Buffer.byteLength(text)} bytes)\n`,
    });
    const asJson = await toolgate(["audit", "export", "--out", file, "--json"], auditor());
    expect([asJson.stderr, JSON.parse(asJson.stdout)]).toEqual(["", { file, entries, bytes: Buffer.byteLength(text) }]);

    const keys = (await api("GET", "/v1/audit/verifier-keys", null)).json.keys as string[];
    const verified = await toolgate(["audit", "verify", "--export", file]);
    const field = (out: string, name: string) =>
      out
        .split("\n")
        .find((l) => l.startsWith(`${name}:`))
        ?.replace(/^[a-z ]+:\s+/, "");
    expect([
      verified.status,
      field(verified.stdout, "entries"),
      field(verified.stdout, "signed by"),
      field(verified.stdout, "findings"),
      field(verified.stdout, "result"),
    ]).toEqual([0, String(entries), keys[0]?.split("+").slice(0, 2).join("+"), "none", "ok"]);
    // One entry's kind changed by a byte: found.
    writeFileSync(file, text.replace('"kind":"consumer.configured"', '"kind":"consumer.configurEd"'));
    const broken = await toolgate(["audit", "verify", "--export", file]);
    expect([broken.status, field(broken.stdout, "result")]).toEqual([1, "FAILED"]);
  });
});

describe("webhooks", () => {
  const NOTE = "The signing secret is shown this once: store it now (receivers verify each delivery with it).";

  it("create, list, deliveries, redeliver and delete", async () => {
    const created = await toolgate(
      ["webhooks", "create", "--url", receiverUrl, "--events", "approval.requested,approval.decided"],
      shop,
    );
    const endpoint = /^endpoint: +(ep_[0-9a-f]{32})$/m.exec(created.stdout)?.[1] ?? "";
    const secret = /^secret: +(whsec_\S+)$/m.exec(created.stdout)?.[1] ?? "";
    expect(created).toEqual({
      status: 0,
      stderr: "",
      stdout: lines(
        `endpoint:   ${endpoint}`,
        `url:        ${receiverUrl}`,
        "events:     approval.requested, approval.decided",
        "arguments:  not included",
        `secret:     ${secret}`,
        NOTE,
      ),
    });
    const second = await toolgate(
      [
        "webhooks",
        "create",
        "--url",
        `${receiverUrl}/all`,
        "--include-arguments",
        "--description",
        "every event",
        "--json",
      ],
      shop,
    );
    const secondJson = JSON.parse(second.stdout);
    expect(secondJson).toEqual({
      endpoint_id: secondJson.endpoint_id,
      url: `${receiverUrl}/all`,
      events: ["approval.requested", "approval.decided", "call.outcome_unknown", "call.reconciled"],
      include_arguments: true,
      description: "every event",
      created_at: secondJson.created_at,
      secret: secondJson.secret,
    });

    const endpoints = (await api("GET", `/v1/consumers/${SHOP}/webhooks`, ADMIN)).json.endpoints as any[];
    expect(endpoints.map((e) => e.endpoint_id)).toEqual([endpoint, secondJson.endpoint_id]);
    const urlWidth = Math.max(3, ...endpoints.map((e) => e.url.length));
    const eventsWidth = Math.max(6, ...endpoints.map((e) => e.events.join(",").length));
    const row = (e: any, args: string) =>
      `${e.endpoint_id}  ${e.url.padEnd(urlWidth)}  ${e.events.join(",").padEnd(eventsWidth)}  ${args.padEnd(9)}  ${iso(e.created_at)}`;
    expect(await toolgate(["webhooks", "list"], shop)).toEqual({
      status: 0,
      stderr: "",
      stdout: lines(
        `ID${" ".repeat(33)}  ${"URL".padEnd(urlWidth)}  ${"EVENTS".padEnd(eventsWidth)}  ARGUMENTS  CREATED`,
        row(endpoints[0], "no"),
        row(endpoints[1], "yes"),
      ),
    });
    expect(JSON.parse((await toolgate(["webhooks", "list", "--json"], shop)).stdout)).toEqual({
      endpoints,
      next_cursor: null,
    });
    // --gate names the gate where --url is the endpoint's (and over TOOLGATE_URL).
    const viaGate = await toolgate(["webhooks", "list", "--json", "--gate", gateUrl], {
      ...shop,
      TOOLGATE_URL: `http://127.0.0.1:${await freePort()}`,
    });
    expect([viaGate.status, JSON.parse(viaGate.stdout)]).toEqual([0, { endpoints, next_cursor: null }]);

    // An approval requested: one message to each endpoint.
    await refundCall(4, "damaged");
    let deliveries: any[] = [];
    for (let i = 0; i < 300; i++) {
      deliveries = await allPages(`/v1/consumers/${SHOP}/webhooks/deliveries`, "deliveries", ADMIN);
      if (deliveries.length >= 2 && deliveries.every((d) => d.state === "delivered")) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(deliveries.map((d) => [d.event_type, d.state])).toEqual([
      ["approval.requested", "delivered"],
      ["approval.requested", "delivered"],
    ]);
    const deliveryRow = (d: any) =>
      `${d.delivery_id}  ${d.endpoint_id}  approval.requested  delivered  1         204   ${iso(d.created_at)}`;
    expect(await toolgate(["webhooks", "deliveries"], shop)).toEqual({
      status: 0,
      stderr: "",
      stdout: lines(
        `ID${" ".repeat(34)}  ENDPOINT${" ".repeat(27)}  EVENT               STATE      ATTEMPTS  LAST  CREATED`,
        ...deliveries.map(deliveryRow),
      ),
    });
    expect(JSON.parse((await toolgate(["webhooks", "deliveries", "--json"], shop)).stdout)).toEqual(deliveries);
    const mine = deliveries.filter((d) => d.endpoint_id === endpoint);
    expect(
      JSON.parse((await toolgate(["webhooks", "deliveries", "--endpoint", endpoint, "--json"], shop)).stdout),
    ).toEqual(mine);

    const original = mine[0];
    const again = await toolgate(["webhooks", "redeliver", original.delivery_id], shop);
    const redelivery = (
      await allPages(`/v1/consumers/${SHOP}/webhooks/deliveries?endpoint_id=${endpoint}`, "deliveries", ADMIN)
    ).find((d) => d.redelivery_of === original.delivery_id);
    expect(again).toEqual({
      status: 0,
      stderr: "",
      stdout: `queued delivery ${redelivery.delivery_id} to ${endpoint}: message ${original.message_id} again (a redelivery of ${original.delivery_id})\n`,
    });

    expect(await toolgate(["webhooks", "delete", secondJson.endpoint_id], shop)).toEqual({
      status: 0,
      stderr: "",
      stdout: `deleted webhook endpoint ${secondJson.endpoint_id}\n`,
    });
    expect(
      JSON.parse((await toolgate(["webhooks", "list", "--json"], shop)).stdout).endpoints.map(
        (e: any) => e.endpoint_id,
      ),
    ).toEqual([endpoint]);
    for (const delivery of received)
      expect([delivery.body.includes(secret), delivery.body.includes("tg_")]).toEqual([false, false]);
  });
});

describe("the gate's logs", () => {
  it("hold no token or secret the commands sent or printed", () => {
    const log = readFileSync(join(dir, "wrangler.log"), "utf8");
    expect(
      [ADMIN, approverToken, agentToken, auditorToken].filter((token) => token === "" || log.includes(token)),
    ).toEqual([]);
  });
});
