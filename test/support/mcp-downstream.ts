/**
 * Real MCP servers (the official SDK's `McpServer` over its web-standard Streamable HTTP
 * transport) behind workerd's outbound fetch in the worker tests, at `https://mcp.test/...`:
 *
 * - `/shop/mcp`: stateful (sessions), answers as SSE streams; a read with structured content
 *   (`get_item`), writes (`create_order`, `slow_order` which sleeps past the gate's deadline after
 *   doing its work), a tool that fails (`broken`), one outside the gate's schema subset
 *   (`with_email`), and `refresh_catalog`, which changes `get_item`'s schema and announces
 *   `notifications/tools/list_changed` in the middle of its call. Needs `Bearer <token>` when a
 *   token is set.
 * - `/json/mcp`: stateless, answers plain JSON; one read (`echo`), the resource `docs://readme`, the
 *   template `docs://items/{id}` and the prompt `greet` (argument `who`, completed from three names).
 * - `/relay/mcp`: stateless, answers as SSE streams; reads that speak while they run:
 *   `count_up` (progress 1, 2, 3 of 3 for the request's token), `log_steps` (one log message at
 *   each of debug, info, warning, error), `flood` (200 info messages), `flood_big` (20 info
 *   messages of 10,000 characters each), `count_held` (progress 1 of 2, then waits until the test
 *   posts `{ release: true }` to `/_control`, then progress 2 of 2).
 *
 * - `/ask/mcp`: stateful, answers as SSE streams; reads that ask the client in the middle of the
 *   call (`extra.sendRequest`, on the call's stream): `ask_model` (one `sampling/createMessage`),
 *   `ask_user` (one `elicitation/create`), `ask_many` (five `sampling/createMessage` at once).
 *   Each records what its requests came to in `asked`; each `initialize`'s client capabilities
 *   are recorded in `askInit`.
 *
 * Tests drive it at `https://mcp.test/_control` and read what it saw at `/_state`.
 */
import { randomUUID } from "node:crypto";
import { completable } from "@modelcontextprotocol/sdk/server/completable.js";
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CreateMessageResultSchema, ElicitResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { publishedKey, TEST_SIGNING_SECRET, verifyToolgateRequest } from "./identity-verifier.ts";
import * as z from "zod";

/** One POST a server received. */
interface Seen {
  path: string;
  rpc: string | null;
  session: boolean;
  protocol: string | null;
  authorization: string | null;
  /** The gate's identity statement when the request carried one that verifies under the consumer's published key; `{ refused }` with the reason otherwise. */
  identity: Record<string, unknown> | null;
}

/** One tool run (recorded when the handler starts, before any sleep). */
interface Run {
  tool: string;
  arguments: Record<string, unknown>;
  key: string | null;
}

/** What one request of an `/ask` tool came to: the client's answer, or the error code the gate sent. */
interface Asked {
  tool: string;
  method: string;
  answer?: unknown;
  error?: number;
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

async function identityOf(request: Request, body: Uint8Array): Promise<Record<string, unknown> | null> {
  if (!request.headers.has("toolgate-identity")) return null;
  const headers = Object.fromEntries(request.headers);
  const checked = await verifyToolgateRequest(
    { method: request.method, url: request.url, headers, body },
    (consumer) => [publishedKey(TEST_SIGNING_SECRET, consumer)],
    () => true,
  );
  return checked.ok ? { ...checked.statement } : { refused: checked.reason };
}

export class McpDownstream {
  token: string | null = null;
  /** `get_item`'s schema: 1 (ids up to 8 characters), 2 (up to 16). */
  variant = 1;
  slowMs = 2_500;
  readonly seen: Seen[] = [];
  readonly runs: Run[] = [];
  deletes = 0;
  readonly asked: Asked[] = [];
  readonly askInit: unknown[] = [];
  readonly #askSessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  #release: (() => void) | null = null;
  readonly #sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();

  reset(): void {
    this.token = null;
    this.variant = 1;
    this.slowMs = 2_500;
    this.seen.length = 0;
    this.runs.length = 0;
    this.deletes = 0;
    this.#sessions.clear();
    this.asked.length = 0;
    this.askInit.length = 0;
    this.#askSessions.clear();
  }

  #run(tool: string, args: Record<string, unknown>, meta: Record<string, unknown> | undefined): void {
    const key = meta?.["io.toolgate/idempotency_key"];
    this.runs.push({ tool, arguments: args, key: typeof key === "string" ? key : null });
  }

  #shop(): McpServer {
    const server = new McpServer({ name: "shop", version: "1.2.0" });
    const text = (value: string) => ({ type: "text" as const, text: value });
    server.registerTool(
      "get_item",
      {
        description: "Read an item's name and stock.",
        inputSchema: { id: z.string().max(this.variant === 1 ? 8 : 16) },
        outputSchema: { id: z.string(), name: z.string(), stock: z.number().int() },
        annotations: { readOnlyHint: true },
      },
      async (args, extra) => {
        this.#run("get_item", args, extra._meta);
        return {
          content: [
            {
              ...text(`item ${args.id}: Widget, 3 in stock`),
              annotations: { audience: ["assistant" as const] },
              _meta: { "shop/trace": "t-1" },
            },
          ],
          structuredContent: { id: args.id, name: "Widget", stock: 3 },
        };
      },
    );
    server.registerTool(
      "create_order",
      {
        title: "Create an order",
        inputSchema: { item: z.string().max(8), quantity: z.number().int().min(1).max(100) },
        outputSchema: { order_id: z.string() },
      },
      async (args, extra) => {
        this.#run("create_order", args, extra._meta);
        const orderId = `ORD-${this.runs.filter((r) => r.tool === "create_order").length}`;
        return { content: [text(`created ${orderId}`)], structuredContent: { order_id: orderId } };
      },
    );
    server.registerTool(
      "slow_order",
      { description: "Create an order, slowly.", inputSchema: { item: z.string().max(8) } },
      async (args, extra) => {
        this.#run("slow_order", args, extra._meta);
        await sleep(this.slowMs);
        return { content: [text("created slowly")] };
      },
    );
    server.registerTool(
      "broken",
      { description: "Always fails.", annotations: { readOnlyHint: true } },
      async (extra) => {
        this.#run("broken", {}, extra._meta);
        return { isError: true, content: [text("the warehouse is on fire")] };
      },
    );
    server.registerTool(
      "with_email",
      {
        description: "Look a customer up by email.",
        inputSchema: { email: z.string().email() },
        annotations: { readOnlyHint: true },
      },
      async () => ({
        content: [text("never called")],
      }),
    );
    server.registerTool(
      "refresh_catalog",
      { description: "Reload the catalog.", annotations: { readOnlyHint: true } },
      async (extra) => {
        this.#run("refresh_catalog", {}, extra._meta);
        this.variant = 2;
        await extra.sendNotification({ method: "notifications/tools/list_changed" });
        return { content: [text("catalog reloaded")] };
      },
    );
    return server;
  }

  #relay(): McpServer {
    const server = new McpServer({ name: "relay", version: "0.1.0" }, { capabilities: { logging: {} } });
    const log = (extra: { sendNotification: (n: any) => Promise<void> }, level: string, data: unknown) =>
      extra.sendNotification({ method: "notifications/message", params: { level, logger: "downstream", data } });
    server.registerTool(
      "count_up",
      { description: "Count to three, reporting progress.", annotations: { readOnlyHint: true } },
      async (extra) => {
        const token = extra._meta?.progressToken;
        this.#run("count_up", { token: token ?? null }, extra._meta);
        for (const progress of [1, 2, 3]) {
          if (token !== undefined)
            await extra.sendNotification({
              method: "notifications/progress",
              params: { progressToken: token, progress, total: 3, message: `step ${progress}` },
            });
        }
        // Progress for a token the gate never sent: not relayed.
        await extra.sendNotification({
          method: "notifications/progress",
          params: { progressToken: "someone-else", progress: 99 },
        });
        return { content: [{ type: "text", text: "counted" }] };
      },
    );
    server.registerTool(
      "log_steps",
      { description: "Log at four levels.", annotations: { readOnlyHint: true } },
      async (extra) => {
        this.#run("log_steps", {}, extra._meta);
        for (const level of ["debug", "info", "warning", "error"]) await log(extra, level, { step: level });
        return { content: [{ type: "text", text: "logged" }] };
      },
    );
    server.registerTool(
      "count_held",
      { description: "Count to two, waiting in between.", annotations: { readOnlyHint: true } },
      async (extra) => {
        const token = extra._meta?.progressToken ?? "none";
        this.#run("count_held", {}, extra._meta);
        await extra.sendNotification({
          method: "notifications/progress",
          params: { progressToken: token, progress: 1, total: 2 },
        });
        await Promise.race([new Promise<void>((done) => (this.#release = done)), sleep(4_000)]);
        await extra.sendNotification({
          method: "notifications/progress",
          params: { progressToken: token, progress: 2, total: 2 },
        });
        return { content: [{ type: "text", text: "held" }] };
      },
    );
    server.registerTool(
      "flood",
      { description: "Log 200 messages.", annotations: { readOnlyHint: true } },
      async (extra) => {
        this.#run("flood", {}, extra._meta);
        for (let i = 1; i <= 200; i++) await log(extra, "info", `message ${i}`);
        return { content: [{ type: "text", text: "flooded" }] };
      },
    );
    server.registerTool(
      "flood_big",
      { description: "Log 20 long messages.", annotations: { readOnlyHint: true } },
      async (extra) => {
        this.#run("flood_big", {}, extra._meta);
        for (let i = 0; i < 20; i++) await log(extra, "info", String(i % 10).repeat(10_000));
        return { content: [{ type: "text", text: "flooded" }] };
      },
    );
    return server;
  }

  async #relayRequest(request: Request): Promise<Response> {
    const parsedBody = await this.#record("/relay/mcp", request);
    if (request.method === "DELETE") return new Response(null, { status: 405 });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await this.#relay().connect(transport);
    return transport.handleRequest(request, { parsedBody });
  }

  #ask(): McpServer {
    const server = new McpServer({ name: "ask", version: "0.1.0" });
    type Extra = { sendRequest: (request: any, schema: any) => Promise<any>; _meta?: Record<string, unknown> };
    const ask = async (
      tool: string,
      extra: Extra,
      method: string,
      params: Record<string, unknown>,
      schema: unknown,
    ): Promise<Asked> => {
      try {
        const answer = await extra.sendRequest({ method, params }, schema);
        const asked = { tool, method, answer };
        this.asked.push(asked);
        return asked;
      } catch (error) {
        const asked = { tool, method, error: (error as { code?: number }).code ?? 0 };
        this.asked.push(asked);
        return asked;
      }
    };
    const sampling = (text: string) => ({
      messages: [{ role: "user", content: { type: "text", text } }],
      maxTokens: 50,
      _meta: { "ask/trace": "t-9" },
    });
    const read = { annotations: { readOnlyHint: true } };
    server.registerTool("ask_model", { description: "Ask the client's model.", ...read }, async (extra) => {
      this.#run("ask_model", {}, extra._meta);
      const asked = await ask(
        "ask_model",
        extra,
        "sampling/createMessage",
        sampling("Say hello"),
        CreateMessageResultSchema,
      );
      if (asked.error !== undefined) throw new Error(`sampling refused: ${asked.error}`);
      const answer = asked.answer as { content: { text: string }; model: string };
      return { content: [{ type: "text", text: `${answer.model} said: ${answer.content.text}` }] };
    });
    server.registerTool("ask_user", { description: "Ask the user for a name.", ...read }, async (extra) => {
      this.#run("ask_user", {}, extra._meta);
      const params = {
        message: "Your name?",
        requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
      };
      const asked = await ask("ask_user", extra, "elicitation/create", params, ElicitResultSchema);
      if (asked.error !== undefined) throw new Error(`elicitation refused: ${asked.error}`);
      const answer = asked.answer as { action: string; content?: { name?: string } };
      return { content: [{ type: "text", text: `${answer.action}: ${answer.content?.name ?? "-"}` }] };
    });
    server.registerTool(
      "ask_many",
      { description: "Ask the client's model five times at once.", ...read },
      async (extra) => {
        this.#run("ask_many", {}, extra._meta);
        const all = await Promise.all(
          [1, 2, 3, 4, 5].map((n) =>
            ask("ask_many", extra, "sampling/createMessage", sampling(`question ${n}`), CreateMessageResultSchema),
          ),
        );
        return {
          content: [
            {
              type: "text",
              text: all.map((a) => (a.error === undefined ? "answered" : `error ${a.error}`)).join(", "),
            },
          ],
        };
      },
    );
    return server;
  }

  async #askRequest(request: Request): Promise<Response> {
    const parsedBody = (await this.#record("/ask/mcp", request)) as
      { method?: string; params?: { capabilities?: unknown } } | undefined;
    if (parsedBody?.method === "initialize") this.askInit.push(parsedBody.params?.capabilities ?? null);
    const sessionId = request.headers.get("mcp-session-id");
    if (sessionId !== null) {
      const transport = this.#askSessions.get(sessionId);
      if (transport === undefined)
        return Response.json(
          { jsonrpc: "2.0", id: null, error: { code: -32001, message: "Session not found" } },
          { status: 404 },
        );
      return transport.handleRequest(request, { parsedBody });
    }
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void this.#askSessions.set(id, transport),
      onsessionclosed: (id) => void this.#askSessions.delete(id),
    });
    await this.#ask().connect(transport);
    return transport.handleRequest(request, { parsedBody });
  }

  #plain(): McpServer {
    const server = new McpServer({ name: "plain", version: "0.1.0" });
    server.registerTool(
      "echo",
      { description: "Echo a word.", inputSchema: { word: z.string().max(16) }, annotations: { readOnlyHint: true } },
      async (args, extra) => {
        this.#run("echo", args, extra._meta);
        return { content: [{ type: "text", text: args.word }] };
      },
    );
    // Resources and a prompt: what the MCP endpoint federates (test/worker/mcp/mcp-resources.test.ts).
    server.registerResource(
      "readme",
      "docs://readme",
      { description: "The read-me.", mimeType: "text/plain" },
      async (uri) => ({ contents: [{ uri: uri.href, mimeType: "text/plain", text: "Read me first." }] }),
    );
    server.registerResource(
      "item",
      new ResourceTemplate("docs://items/{id}", { list: undefined }),
      { description: "One item.", mimeType: "application/json" },
      async (uri, variables) => ({
        contents: [{ uri: uri.href, mimeType: "application/json", text: JSON.stringify({ id: variables["id"] }) }],
      }),
    );
    server.registerPrompt(
      "greet",
      {
        description: "Greets someone.",
        argsSchema: {
          who: completable(z.string(), (value) => ["Ada", "Alan", "Grace"].filter((n) => n.startsWith(value))),
        },
      },
      async (args) => ({
        messages: [
          { role: "user", content: { type: "text", text: `Greet ${args.who}.` } },
          {
            role: "user",
            content: {
              type: "resource",
              resource: { uri: "docs://readme", mimeType: "text/plain", text: "Read me first." },
            },
          },
        ],
      }),
    );
    return server;
  }

  async #record(path: string, request: Request): Promise<unknown> {
    const bytes = new Uint8Array(await request.arrayBuffer());
    const body =
      request.method === "POST" ? (JSON.parse(new TextDecoder().decode(bytes)) as { method?: string }) : undefined;
    const identity = await identityOf(request, bytes);
    this.seen.push({
      path,
      rpc: body?.method ?? (request.method === "POST" ? "(response)" : request.method),
      session: request.headers.has("mcp-session-id"),
      protocol: request.headers.get("mcp-protocol-version"),
      authorization: request.headers.get("authorization"),
      identity,
    });
    return body;
  }

  async #shopRequest(request: Request): Promise<Response> {
    if (this.token !== null && request.headers.get("authorization") !== `Bearer ${this.token}`)
      return Response.json({ error: "unauthorized" }, { status: 401 });
    const parsedBody = await this.#record("/shop/mcp", request);
    const sessionId = request.headers.get("mcp-session-id");
    if (sessionId !== null) {
      const transport = this.#sessions.get(sessionId);
      if (transport === undefined)
        return Response.json(
          { jsonrpc: "2.0", id: null, error: { code: -32001, message: "Session not found" } },
          { status: 404 },
        );
      return transport.handleRequest(request, { parsedBody });
    }
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void this.#sessions.set(id, transport),
      onsessionclosed: (id) => {
        this.deletes += 1;
        this.#sessions.delete(id);
      },
    });
    await this.#shop().connect(transport);
    return transport.handleRequest(request, { parsedBody });
  }

  async #plainRequest(request: Request): Promise<Response> {
    const parsedBody = await this.#record("/json/mcp", request);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await this.#plain().connect(transport);
    return transport.handleRequest(request, { parsedBody });
  }

  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/_control") {
      const control = (await request.json()) as {
        reset?: boolean;
        token?: string | null;
        slowMs?: number;
        release?: boolean;
      };
      if (control.release === true) this.#release?.();
      if (control.reset === true) this.reset();
      if (control.token !== undefined) this.token = control.token;
      if (control.slowMs !== undefined) this.slowMs = control.slowMs;
      return Response.json({ ok: true });
    }
    if (url.pathname === "/_state")
      return Response.json({
        seen: this.seen,
        runs: this.runs,
        deletes: this.deletes,
        variant: this.variant,
        asked: this.asked,
        askInit: this.askInit,
      });
    if (url.pathname === "/shop/mcp") return this.#shopRequest(request);
    if (url.pathname === "/json/mcp") return this.#plainRequest(request);
    if (url.pathname === "/relay/mcp") return this.#relayRequest(request);
    if (url.pathname === "/ask/mcp") return this.#askRequest(request);
    return Response.json({ error: "no such endpoint" }, { status: 404 });
  }
}
