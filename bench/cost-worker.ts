// The gate's Worker for `npm run bench:http` only (tools/lib/bench-http-cost.ts runs it with
// `wrangler dev bench/cost-worker.ts` on 127.0.0.1; never deployed, never in the production
// bundle): the production app and object, the object extended with one `bench` method and the
// Worker with `POST /bench/object` and `POST /bench/worker` (admin secret only). Each runs a batch
// of one kind of call inside one request and answers the batch's time by performance.now(); the
// bench script also reads workerd's CPU time around that request (/proc, per thread), which is
// the figure it ranks by. Under `wrangler dev` performance.now() advances while code runs, in
// steps the `clock` operation measures (1 ms when the machine is idle); in production it stands
// still between I/O, so this method only works locally.
import { app } from "../src/worker/app";
import type { Env } from "../src/worker/env";
import { canonicalJson, readJson, type JsonObject } from "../src/core/json";
import { JsonRpcMessage } from "../src/contracts/mcp";
import { ToolCallRequest } from "../src/contracts/tool-call";
import { carried, type Carried } from "../src/worker/kernel/rpc";
import { corsOriginsHeld, CORS_ORIGINS_CACHED } from "../src/worker/http/cors-origins";
import { heldInMemory, type HeldInMemory } from "../src/worker/kernel/memory";
import { nodePosition } from "../src/worker/features/audit/tree-key";
import { ConsumerObject as GateObject } from "../src/worker/kernel/consumer-object";
import { objectRpc, type ObjectRpc } from "../src/worker/kernel/object-rpc";
import { consumerIdsHeld, CONSUMER_IDS_CACHED } from "../src/worker/http/middleware";
import { secretsEqual } from "../src/worker/http/timing-safe";
import { taggedTokensHeld, TAGGED_TOKENS_CACHED } from "../src/worker/features/credentials/format";

export { DirectoryObject } from "../src/worker/features/directory/directory-object";

/** What the object times: a bare SQLite insert, a read call's rows without the gate's code, or one kind of gate call. */
export type Scenario = "insert" | "rows" | "read" | "write" | "data" | "fetch" | "fetch written" | "mcp";

/** The credentials the scenarios call with (all of the consumer the operation names). */
export interface Tokens {
  readonly agent: string;
  readonly approver: string;
  readonly mcp: string;
}

/** One operation of `POST /bench/object`. */
export type BenchOp =
  | { readonly kind: "clock" }
  | { readonly kind: "serial" }
  | { readonly kind: "abort" }
  | { readonly kind: "memory" }
  | { readonly kind: "tables" }
  | { readonly kind: "mcpSession"; readonly tokens: Tokens }
  | { readonly kind: "prepareWrites"; readonly run: string; readonly n: number; readonly tokens: Tokens }
  | { readonly kind: "prepare"; readonly scenario: Scenario; readonly run: string; readonly n: number }
  | {
      readonly kind: "time";
      readonly scenario: Scenario;
      readonly run: string;
      readonly n: number;
      readonly tokens: Tokens;
      readonly sessionId?: string;
      readonly fetchUrl?: string;
      /** Data tools' downstream answered inside the object (no network): the gate's own share of a data-tool call. */
      readonly local?: boolean;
    }
  | { readonly kind: "calls"; readonly run: string; readonly n: number; readonly agents: readonly string[] };

const CONTEXT = {
  provider: "openai",
  api_family: "responses",
  response_id: "resp-bench",
  adapter_revision: "openai-responses-v1",
};

function toolCallBody(name: string, args: JsonObject, roles: string[], callId: string, key: string | null): JsonObject {
  return {
    principal: { subject_id: "user-1", roles },
    proposal: { name, arguments: args },
    context: { call_id: callId, operation_id: `op-${callId}`, idempotency_key: key, ...CONTEXT },
  };
}

/** The request bodies of a scenario's calls (built before the clock starts). */
function bodies(scenario: Scenario, run: string, n: number): JsonObject[] {
  return Array.from({ length: n }, (_, i) => {
    const id = `${run}-${i}`;
    if (scenario === "write")
      return toolCallBody("create_refund_draft", { order_ref: "ORDER-7", reason: "duplicate" }, [], id, id);
    if (scenario === "data") return toolCallBody("lookup_customer", { customer: "acme" }, ["support"], id, null);
    if (scenario === "mcp")
      return {
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: "get_order", arguments: { order_ref: "ORDER-7" } },
      };
    return toolCallBody("get_order", { order_ref: "ORDER-7" }, [], id, null);
  });
}

/** The request texts of a scenario's calls, as a client sends them. */
export function texts(scenario: Scenario, run: string, n: number): string[] {
  return bodies(scenario, run, n).map((body) => canonicalJson(body));
}

/** A value as the Worker hands it to the object after its contract check (object/rpc.ts). */
function carry<T>(value: T): Carried<T> {
  const moved = carried(value);
  if ("outside" in moved) throw new Error(moved.outside);
  return moved;
}

/** The tool-call requests of a scenario as the object receives them from the Worker. */
function toolCalls(scenario: Scenario, run: string, n: number): Carried<ToolCallRequest>[] {
  return bodies(scenario, run, n).map((body) => carry(ToolCallRequest.parse(body)));
}

/** The MCP messages of a scenario as the object receives them from the Worker. */
function mcpMessages(scenario: Scenario, run: string, n: number): Carried<JsonRpcMessage>[] {
  return bodies(scenario, run, n).map((body) => carry(JsonRpcMessage.parse(body)));
}

/** What the object receives for each call of a batch: a client's text, a tool-call request or an MCP message. */
type Inputs =
  | { readonly kind: "texts"; readonly texts: readonly string[] }
  | { readonly kind: "calls"; readonly calls: readonly Carried<ToolCallRequest>[] }
  | { readonly kind: "messages"; readonly messages: readonly Carried<JsonRpcMessage>[] };

/** The inputs of a scenario's batch: what the Worker hands the object, or, for an insert or a fetch, the texts. */
function inputsOf(scenario: Scenario, run: string, n: number): Inputs {
  if (scenario === "mcp") return { kind: "messages", messages: mcpMessages(scenario, run, n) };
  if (scenario === "insert" || scenario === "rows" || scenario === "fetch" || scenario === "fetch written")
    return { kind: "texts", texts: texts("read", run, n) };
  return { kind: "calls", calls: toolCalls(scenario, run, n) };
}

function countOf(inputs: Inputs): number {
  return inputs.kind === "texts"
    ? inputs.texts.length
    : inputs.kind === "calls"
      ? inputs.calls.length
      : inputs.messages.length;
}

const MCP_VERSION = "2025-11-25";

/** The clock's step: the least change of performance.now() seen (null when it stands still). */
function clockStep(): number | null {
  let smallest = Infinity;
  let last = performance.now();
  for (let i = 0; i < 50_000_000 && smallest === Infinity; i++) {
    const now = performance.now();
    if (now !== last) smallest = Math.min(smallest, now - last);
    last = now;
  }
  return smallest === Infinity ? null : smallest;
}

function answerOf(outcome: { ok: true; value: string } | { ok: false; error: unknown }, what: string): JsonObject {
  if (!outcome.ok) throw new Error(`${what}: ${JSON.stringify(outcome.error)}`);
  return JSON.parse(outcome.value) as JsonObject;
}

/**
 * The timed batches' check that a call succeeded, on the answer's text as the gate wrote it: the
 * answer is canonical JSON, so its model result ends `"status":"succeeded"}` right before
 * `"provider_output"` (the projection's copy of the result is an escaped string and cannot
 * match). A search instead of a parse: the check runs in the measured request, and parsing
 * every answer there would add the bench's own work to each call's CPU.
 */
function succeededText(outcome: { ok: true; value: string } | { ok: false; error: unknown }, what: string): void {
  if (!outcome.ok || !outcome.value.includes('"status":"succeeded"},"provider_output":'))
    throw new Error(`${what} did not succeed: ${JSON.stringify(outcome).slice(0, 300)}`);
}

let constructed = 0;

/** The gate's object with the benchmark's operations. */
export class ConsumerObject extends GateObject {
  /** Which instance of this isolate this is: a cold start (after `abort`) is a new one. */
  readonly serial = ++constructed;

  /** A bare round trip that carries bytes: the request's text came in (RPC), `answerBytes` characters go out. */
  roundTripCarrying(_request: string, answerBytes: number): string {
    return "x".repeat(Math.min(answerBytes, 65536));
  }

  /**
   * One bare round trip's object side (`write` false: nothing) or one durable write in this
   * object (`write` true: one small SQLite insert, committed before the answer leaves, as a gate
   * call's rows are): the two baselines a gate read call is ranked against over HTTP.
   */
  roundTrip(write: boolean): { ok: true } {
    if (write) {
      this.ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS bench_rows (id INTEGER PRIMARY KEY, body TEXT NOT NULL)");
      this.ctx.storage.sql.exec("INSERT INTO bench_rows (body) VALUES (?)", "one durable write");
    }
    return { ok: true };
  }

  /**
   * Batches' inputs built by `prepare`, by run, until their `time` takes them: built in a request
   * of their own, so the CPU read around the timed request is the gate's work alone (building a
   * carried value runs the contract, as the Worker does, and would count as the object's).
   */
  readonly #prepared = new Map<string, Inputs>();

  /** The next entry of {@link roundTripRows}' shadow tables (from their last row once per instance). */
  #shadowSeq: number | undefined;

  /**
   * One durable write of a read call's rows without the gate's code: the rows a gate read call
   * commits, in tables shaped like the gate's own (a call identity in a `records`-like table with
   * its primary key and age index; a ~1 KB audit entry; its Merkle leaf and the nodes it completes,
   * in one statement) and in the same two transactions, so the object's share of a read call splits
   * into its rows and its code. Shadow tables: the gate's own are never touched.
   */
  roundTripRows(): { ok: true } {
    this.#rows();
    return { ok: true };
  }

  /** A read call's rows without the gate's code ({@link roundTripRows}; the batch scenario `rows`). */
  #rows(): void {
    const sql = this.ctx.storage.sql;
    if (this.#shadowSeq === undefined) {
      sql.exec(`CREATE TABLE IF NOT EXISTS bench_records (tbl TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, stored_at INTEGER NOT NULL DEFAULT 0, hold INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (tbl, key));
        CREATE INDEX IF NOT EXISTS bench_records_by_age ON bench_records (hold, stored_at);
        CREATE TABLE IF NOT EXISTS bench_chain (seq INTEGER PRIMARY KEY, kind TEXT NOT NULL, at INTEGER NOT NULL, record TEXT NOT NULL, prev_sha256 TEXT NOT NULL, entry_sha256 TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS bench_tree (pos INTEGER PRIMARY KEY, level INTEGER NOT NULL, idx INTEGER NOT NULL, hash BLOB NOT NULL);`);
      this.#shadowSeq =
        Number(sql.exec<{ n: number }>("SELECT COALESCE(MAX(seq), 0) AS n FROM bench_chain").one().n) + 1;
    }
    const seq = this.#shadowSeq++;
    const key = JSON.stringify(["tenant-a", "user-1", "openai", "responses", "resp-bench", `rt-rows-${seq}`]);
    this.ctx.storage.transactionSync(() =>
      sql.exec(
        "INSERT INTO bench_records (tbl, key, value, stored_at, hold) VALUES (?, ?, ?, ?, ?) ON CONFLICT (tbl, key) DO NOTHING",
        "call_fingerprints",
        key,
        `"${"f".repeat(64)}"`,
        seq,
        0,
      ),
    );
    this.ctx.storage.transactionSync(() => {
      sql.exec(
        "INSERT INTO bench_chain (seq, kind, at, record, prev_sha256, entry_sha256) VALUES (?, ?, ?, ?, ?, ?)",
        seq,
        "tool_call",
        seq,
        `{"call":"${"r".repeat(960)}"}`,
        "a".repeat(64),
        "b".repeat(64),
      );
      const nodes: Array<[number, number]> = [[0, seq - 1]];
      for (let level = 0, index = seq - 1; index % 2 === 1; level++, index = (index - 1) / 2)
        nodes.push([level + 1, (index - 1) / 2]);
      const hash = new Uint8Array(32).fill(seq % 251).buffer;
      sql.exec(
        `INSERT INTO bench_tree (pos, level, idx, hash) VALUES ${nodes.map(() => "(?, ?, ?, ?)").join(", ")}`,
        ...nodes.flatMap(([level, idx]) => [nodePosition(level, idx), level, idx, hash]),
      );
    });
  }

  async bench(
    consumer: string,
    op: BenchOp,
  ): Promise<{
    ms?: number;
    n?: number;
    step?: number | null;
    serial?: number;
    sessionId?: string;
    held?: HeldInMemory[];
    tables?: Record<string, number>;
    changes?: number;
  }> {
    switch (op.kind) {
      case "clock":
        return { step: clockStep() };
      case "serial":
        return { serial: this.serial };
      case "abort":
        this.ctx.abort("bench: the next call meets a cold object");
        return {};
      case "tables": {
        // Rows per table (the object's own tables; SQLite's and the runtime's internal ones left out).
        const names = this.ctx.storage.sql
          .exec<{ name: string }>(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'",
          )
          .toArray();
        const tables = Object.fromEntries(
          names.map(({ name }) => [
            name,
            Number(this.ctx.storage.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM "${name}"`).one().n),
          ]),
        );
        // SQLite's count of rows inserted, updated or deleted on this connection (one object, one connection).
        return {
          tables,
          changes: Number(this.ctx.storage.sql.exec<{ n: number }>("SELECT total_changes() AS n").one().n),
        };
      }
      case "memory":
        return { held: heldInMemory(this) };
      case "mcpSession": {
        const init = carry(
          JsonRpcMessage.parse({
            jsonrpc: "2.0",
            id: 0,
            method: "initialize",
            params: { protocolVersion: MCP_VERSION, capabilities: {}, clientInfo: { name: "bench", version: "1" } },
          }),
        );
        const reply = await this.operations.mcp(consumer, op.tokens.mcp, {
          method: "POST",
          sessionId: null,
          protocolVersion: null,
          message: init,
          events: false,
        });
        if (!reply.ok || reply.value.kind !== "answer" || reply.value.sessionId === null)
          throw new Error(`initialize: ${JSON.stringify(reply)}`);
        return { sessionId: reply.value.sessionId };
      }
      case "prepare":
        this.#prepared.set(op.run, inputsOf(op.scenario, op.run, op.n));
        return {};
      case "prepareWrites":
        for (const request of toolCalls("write", op.run, op.n)) await this.#approve(consumer, op.tokens, request);
        return {};
      case "calls": {
        const all = toolCalls("read", op.run, op.n);
        for (let i = 0; i < all.length; i++) {
          const request = all[i];
          if (request !== undefined)
            answerOf(await this.operations.toolCall(consumer, op.agents[i % op.agents.length] ?? "", request), "call");
        }
        return { n: all.length };
      }
      case "time":
        return op.local === true ? answeredLocally(() => this.#time(consumer, op)) : this.#time(consumer, op);
    }
  }

  /** One write opened (it needs an approval), then approved with the digest the approver sees. */
  async #approve(consumer: string, tokens: Tokens, request: Carried<ToolCallRequest>): Promise<void> {
    const approvalId = answerOf(await this.operations.toolCall(consumer, tokens.agent, request), "write")[
      "approval_id"
    ];
    if (typeof approvalId !== "string") throw new Error("a bench write did not ask for an approval");
    const list = answerOf(
      await this.operations.approvalsCall(consumer, tokens.approver, { kind: "listApprovals", cursor: null }),
      "approvals",
    ) as { approvals?: JsonObject[] };
    const digest = list.approvals?.find((a) => a["approval_id"] === approvalId)?.["approval_digest"];
    if (typeof digest !== "string") throw new Error("the bench approval is not listed");
    answerOf(
      await this.operations.approvalsCall(consumer, tokens.approver, {
        kind: "decideApproval",
        approvalId,
        request: { value: { decision: "approve", approval_digest: digest }, floats: [] },
      }),
      "decision",
    );
  }

  async #time(consumer: string, op: Extract<BenchOp, { kind: "time" }>): Promise<{ ms: number; n: number }> {
    const sql = this.ctx.storage.sql;
    // What the object receives from the Worker: prepared by an earlier request, else built here (before the clock starts).
    const inputs = this.#prepared.get(op.run) ?? inputsOf(op.scenario, op.run, op.n);
    this.#prepared.delete(op.run);
    const n = countOf(inputs);
    const answers: unknown[] = [];
    sql.exec("CREATE TABLE IF NOT EXISTS bench_rows (id INTEGER PRIMARY KEY, body TEXT NOT NULL)");
    const started = performance.now();
    for (let i = 0; i < n; i++) {
      if (inputs.kind === "texts") {
        const text = inputs.texts[i] ?? "";
        if (op.scenario === "insert") sql.exec("INSERT INTO bench_rows (body) VALUES (?)", text);
        else if (op.scenario === "rows") this.#rows();
        else {
          // A fetch waits for the object's writes not yet durable (the output gate): "fetch written"
          // writes one row first, as each data tool call's fetch waits for the rows written since
          // the last one went out (its own call identity, the previous call's audit entry).
          if (op.scenario === "fetch written") sql.exec("INSERT INTO bench_rows (body) VALUES (?)", text);
          const res = await fetch(op.fetchUrl ?? "", {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: '{"customer":"acme"}',
          });
          answers.push(await res.text());
        }
      } else if (inputs.kind === "messages") {
        answers.push(
          await this.operations.mcp(consumer, op.tokens.mcp, {
            method: "POST",
            sessionId: op.sessionId ?? null,
            protocolVersion: MCP_VERSION,
            message: inputs.messages[i] ?? null,
            events: false,
          }),
        );
      } else {
        const request = inputs.calls[i];
        if (request === undefined) throw new Error("a scenario without its calls");
        answers.push(await this.operations.toolCall(consumer, op.tokens.agent, request));
      }
    }
    const ms = performance.now() - started;
    // Checked after the clock stopped: every call did what it was meant to.
    for (const answer of answers) {
      if (op.scenario === "mcp") {
        const reply = answer as Awaited<ReturnType<ObjectRpc["mcp"]>>;
        if (!reply.ok || reply.value.kind !== "answer" || reply.value.body.includes('"isError":true'))
          throw new Error(`mcp tools/call: ${JSON.stringify(reply).slice(0, 300)}`);
      } else if (op.scenario !== "fetch" && op.scenario !== "fetch written" && op.scenario !== "rows")
        succeededText(answer as Awaited<ReturnType<ObjectRpc["toolCall"]>>, op.scenario);
    }
    return { ms, n };
  }
}

/** What the demo service answers `lookup_customer` for acme (tools/lib/demo-service.ts). */
const LOCAL_ANSWER =
  '{"data":{"customer":"acme","name":"Acme Corporation","tier":"gold","balance_cents":125000},"resource_revision":null,"observed_at":"2026-01-01T00:00:00Z"}';

/** The platform's fetch answered in the isolate for `run` (its request body read, as a server would), restored after. */
async function answeredLocally<T>(run: () => Promise<T>): Promise<T> {
  const platform = globalThis.fetch;
  globalThis.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    await new Request(input, init).arrayBuffer();
    return new Response(LOCAL_ANSWER, { headers: { "content-type": "application/json" } });
  };
  try {
    return await run();
  } finally {
    globalThis.fetch = platform;
  }
}

/** One real answer of the object per scenario, recorded by a batch of 0 before the timed ones. */
const recorded = new Map<string, unknown>();

/** Request texts of the Worker's batches, built by a request of their own (`prepare`), by run, until their batch takes them. */
const preparedTexts = new Map<string, string[]>();

/** The Worker's share of one call: the route (credential tag, body, contract, canonical text, answer) with the object answering at once. */
async function workerSide(
  request: Request,
  env: Env,
  ctx: ExecutionContext,
  body: {
    consumer: string;
    scenario: "read" | "mcp";
    n: number;
    token: string;
    sessionId?: string;
    run?: string;
    prepare?: boolean;
  },
): Promise<{ ms: number; n: number }> {
  // The batch's request texts are built in a request of their own, so the CPU read around the
  // timed request is the route's work and the requests' construction only.
  if (body.prepare === true && body.run !== undefined) {
    preparedTexts.set(body.run, texts(body.scenario, `worker-${body.run}`, body.n));
    return { ms: 0, n: 0 };
  }
  const url = new URL(request.url);
  const origin = url.origin;
  // Every HTTP request names its host (HTTP/1.1 Host, HTTP/2 :authority), and the runtime's
  // Request carries it; a Request built here has only the headers given.
  const headers: Record<string, string> = {
    host: url.host,
    authorization: `Bearer ${body.token}`,
    "content-type": "application/json",
  };
  if (body.scenario === "mcp")
    Object.assign(headers, {
      accept: "application/json, text/event-stream",
      "mcp-session-id": body.sessionId ?? "",
      "mcp-protocol-version": MCP_VERSION,
    });
  if (!recorded.has(body.scenario)) {
    const real = env.CONSUMER.get(env.CONSUMER.idFromName(body.consumer));
    const run = `worker-${crypto.randomUUID()}`;
    if (body.scenario === "mcp") {
      const message = {
        method: "POST" as const,
        sessionId: body.sessionId ?? null,
        protocolVersion: MCP_VERSION,
        message: mcpMessages("mcp", run, 1)[0] ?? null,
        events: false,
      };
      recorded.set(body.scenario, await objectRpc(real).mcp(body.consumer, body.token, message));
    } else {
      const sample = toolCalls(body.scenario, run, 1)[0];
      if (sample === undefined) throw new Error("no sample call");
      recorded.set(body.scenario, await objectRpc(real).toolCall(body.consumer, body.token, sample));
    }
  }
  // The object's part is that recorded answer here, so only the Worker's work is timed.
  const outcome = recorded.get(body.scenario);
  // The Worker reaches the object through its one `rpc` method (kernel/object-rpc.ts).
  const stub = { rpc: async () => outcome };
  const namespace = { idFromName: (name: string) => env.CONSUMER.idFromName(name), get: () => stub };
  const fake = { ...env, CONSUMER: namespace as unknown as Env["CONSUMER"] };
  const path = body.scenario === "mcp" ? "mcp" : "tool-calls";
  const given = body.run === undefined ? undefined : preparedTexts.get(body.run);
  if (body.run !== undefined) preparedTexts.delete(body.run);
  // Each with its Content-Length, as an HTTP client sends a body it holds whole (the bench's own
  // requests over wrangler dev do): the route reads such a body in one piece.
  const encoder = new TextEncoder();
  const requests = (given ?? texts(body.scenario, `worker-${crypto.randomUUID()}`, body.n)).map(
    (text) =>
      new Request(`${origin}/v1/consumers/${body.consumer}/${path}`, {
        method: "POST",
        headers: { ...headers, "content-length": String(encoder.encode(text).byteLength) },
        body: text,
      }),
  );
  const statuses: number[] = [];
  const started = performance.now();
  for (const req of requests) {
    const res = await app.fetch(req, fake, ctx);
    await res.arrayBuffer();
    statuses.push(res.status);
  }
  const ms = performance.now() - started;
  if (statuses.some((s) => s !== 200)) throw new Error(`worker side answered ${statuses.find((s) => s !== 200)}`);
  return { ms, n: requests.length };
}

export default {
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    const path = new URL(request.url).pathname;
    if (
      request.method !== "POST" ||
      (path !== "/bench/object" && path !== "/bench/worker" && !path.startsWith("/bench/rt/"))
    )
      return app.fetch(request, env, ctx);
    const given = request.headers.get("authorization") ?? "";
    if (env.TOOLGATE_ADMIN_TOKEN === undefined || !secretsEqual(given, `Bearer ${env.TOOLGATE_ADMIN_TOKEN}`))
      return new Response("unauthenticated", { status: 401 });
    // `/bench/rt/<consumer>/bare` and `/bench/rt/<consumer>/write`: a round trip to the consumer's object, with no body to read.
    if (path.startsWith("/bench/rt/")) {
      const [consumer = "", kind] = path.slice("/bench/rt/".length).split("/");
      const stub = env.CONSUMER.get(env.CONSUMER.idFromName(consumer)) as unknown as DurableObjectStub<ConsumerObject>;
      // `carrying?answer=N`: the request's body goes to the object and N characters come back, as a read call's would.
      if (kind === "carrying")
        return new Response(
          await stub.roundTripCarrying(await request.text(), Number(new URL(request.url).searchParams.get("answer"))),
          { headers: { "content-type": "application/json" } },
        );
      // `object`: a read call's body handed straight to the object's toolCall with the agent token of `x-agent-token`.
      if (kind === "object") {
        const read = readJson(await request.text());
        if (!read.ok) return Response.json(read.error, { status: 400 });
        const outcome = await objectRpc(stub).toolCall(
          consumer,
          request.headers.get("x-agent-token") ?? "",
          carry(ToolCallRequest.parse(read.value)),
        );
        return outcome.ok
          ? new Response(outcome.value, { headers: { "content-type": "application/json" } })
          : Response.json(outcome.error, { status: 500 });
      }
      if (kind === "rows") return Response.json(await stub.roundTripRows());
      return Response.json(await stub.roundTrip(kind === "write"));
    }
    const body = (await request.json()) as { consumer: string; op: BenchOp } & Parameters<typeof workerSide>[3];
    try {
      if (path === "/bench/worker") return Response.json(await workerSide(request, env, ctx, body));
      const stub = env.CONSUMER.get(
        env.CONSUMER.idFromName(body.consumer),
      ) as unknown as DurableObjectStub<ConsumerObject>;
      const answer = await stub.bench(body.consumer, body.op);
      // The Worker's own cache (its isolate's, whichever consumer it serves) joins the object's list.
      const cors: HeldInMemory = {
        structure: "CORS allow-lists (Worker isolate)",
        entries: corsOriginsHeld(),
        cap: CORS_ORIGINS_CACHED,
        bound: "LRU, 30 s each",
      };
      const ids: HeldInMemory = {
        structure: "consumer object ids (Worker isolate)",
        entries: consumerIdsHeld(env.CONSUMER),
        cap: CONSUMER_IDS_CACHED,
        bound: "LRU",
      };
      const tags: HeldInMemory = {
        structure: "credential tags checked (Worker isolate)",
        entries: taggedTokensHeld(),
        cap: TAGGED_TOKENS_CACHED,
        bound: "LRU",
      };
      return Response.json(body.op.kind === "memory" ? { held: [...(answer.held ?? []), cors, ids, tags] } : answer);
    } catch (error) {
      // `abort` ends in an error by design; anything else is a failed benchmark.
      return Response.json({ error: error instanceof Error ? error.message : String(error) }, { status: 500 });
    }
  },
};
