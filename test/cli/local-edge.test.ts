/**
 * The local edge of `npm start` in front of a recording upstream: malformed framing is refused
 * with the gate's own catalog problems, well-formed requests pass through byte for byte
 * (repeated headers included), WebSocket upgrades are piped; a client that leaves ends its
 * upstream request, and held requests are bounded per client without starving anyone.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EDGE_PROBLEMS, edgeProblem, startLocalEdge, type EdgeProblemCode } from "../../tools/lib/local-edge";
import { PROBLEM_STATUS, problem, problemResponse, type ProblemCode } from "../../src/worker/http/problem";
import { rawRequest } from "../reliability/support/raw-http";

interface Seen {
  method: string;
  url: string;
  raw: string[];
  body: string;
}

let upstream: Server;
let edge: { port: number; close(): Promise<void> };
const seen: Seen[] = [];
/** Held requests (paths under /held/) the upstream has open, and when each one's close reached it. */
const holding = new Set<string>();
const closedAt = new Map<string, number>();

/** Holds a request under /held/ open: an event stream (headers and one comment at once) or a silent long-poll. */
function hold(req: IncomingMessage, res: import("node:http").ServerResponse): void {
  const url = req.url ?? "";
  holding.add(url);
  res.once("close", () => {
    holding.delete(url);
    closedAt.set(url, Date.now());
  });
  if ((req.headers.accept ?? "").includes("text/event-stream")) {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(": open\n\n");
  }
}

beforeAll(async () => {
  upstream = createServer((req: IncomingMessage, res) => {
    if ((req.url ?? "").startsWith("/held/")) return hold(req, res);
    if (req.url === "/healthz") return void res.end('{"ok":true}');
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      seen.push({
        method: req.method ?? "",
        url: req.url ?? "",
        raw: req.rawHeaders,
        body: Buffer.concat(chunks).toString(),
      });
      res.writeHead(200, { "content-type": "application/json" });
      res.end('{"ok":true}');
    });
  });
  upstream.on("upgrade", (_req, socket) => {
    socket.write("HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade\r\n\r\n");
    socket.on("data", (d: Buffer) => socket.write(Buffer.concat([Buffer.from("echo:"), d])));
    socket.on("end", () => socket.destroy());
  });
  await new Promise<void>((r) => upstream.listen(0, "127.0.0.1", r));
  const address = upstream.address();
  edge = await startLocalEdge({
    port: 0,
    target: { host: "127.0.0.1", port: typeof address === "object" && address !== null ? address.port : 0 },
    requestTimeoutMs: 1_000,
  });
});

afterAll(async () => {
  await edge.close();
  upstream.closeAllConnections();
  await new Promise((r) => upstream.close(r));
});

const send = (text: string, options: { halfClose?: boolean; waitMs?: number } = {}) =>
  rawRequest(edge.port, Buffer.from(text, "latin1"), options);
const codeOf = (body: string) => (JSON.parse(body) as { code: string }).code;

describe("local edge", () => {
  it("answers only problems of the gate's catalog, with the gate's status, title and type", async () => {
    for (const code of Object.keys(EDGE_PROBLEMS) as Array<EdgeProblemCode & ProblemCode>) {
      const fromEdge = edgeProblem(code, "d") as { status: number; body: string };
      const fromGate = problemResponse(problem(code, "d"));
      expect([code, fromEdge.status]).toEqual([code, PROBLEM_STATUS[code]]);
      expect(JSON.parse(fromEdge.body)).toEqual(JSON.parse(await fromGate.text()));
    }
  });

  it("refuses malformed framing, unknown methods and stalls with catalog problems", async () => {
    const post = "POST /x HTTP/1.1\r\nHost: a\r\n";
    const cases: Array<[string, string, number, string, { halfClose?: boolean; waitMs?: number }?]> = [
      ["two Content-Length", `${post}Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}`, 400, "MALFORMED_HTTP"],
      ["negative Content-Length", `${post}Content-Length: -1\r\n\r\n{}`, 400, "MALFORMED_HTTP"],
      [
        "Content-Length with chunked",
        `${post}Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}`,
        400,
        "MALFORMED_HTTP",
      ],
      ["bad chunk size", `${post}Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`, 400, "MALFORMED_HTTP"],
      ["body shorter than declared, then EOF", `${post}Content-Length: 100\r\n\r\n{}`, 400, "MALFORMED_HTTP"],
      ["no Host", "POST /x HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}", 400, "MALFORMED_HTTP"],
      ["declared body over the limit", `${post}Content-Length: 99999999999\r\n\r\n{}`, 413, "BODY_TOO_LARGE"],
      ["unknown method", "FOO /x HTTP/1.1\r\nHost: a\r\n\r\n", 405, "METHOD_NOT_ALLOWED"],
      ["known to the parser, not served", "PROPFIND /x HTTP/1.1\r\nHost: a\r\n\r\n", 405, "METHOD_NOT_ALLOWED"],
      ["CONNECT", "CONNECT a:443 HTTP/1.1\r\nHost: a:443\r\n\r\n", 405, "METHOD_NOT_ALLOWED"],
      ["asterisk-form target", "OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n", 400, "MALFORMED_HTTP"],
      [
        "oversized head",
        `GET /x HTTP/1.1\r\nHost: a\r\nX-Pad: ${"a".repeat(40_000)}\r\n\r\n`,
        431,
        "HEADERS_TOO_LARGE",
      ],
      [
        "body never sent",
        `${post}Content-Length: 100\r\n\r\n{}`,
        408,
        "REQUEST_TIMEOUT",
        { halfClose: false, waitMs: 4_000 },
      ],
    ];
    const got = [];
    for (const [name, text, , , options] of cases) {
      const a = await send(text, options);
      got.push([name, a.status, a.headers.get("content-type")?.[0], a.status >= 400 ? codeOf(a.body) : null]);
    }
    expect(got).toEqual(cases.map(([name, , status, code]) => [name, status, "application/problem+json", code]));
    expect(seen).toEqual([]);
  });

  it("forwards a well-formed request unchanged, repeated headers included, and re-frames chunked bodies", async () => {
    const a = await send(
      'POST /v1/x?q=1 HTTP/1.1\r\nHost: a\r\nIdempotency-Key: k1\r\nIdempotency-Key: k2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{"\r\n5\r\na":1}\r\n0\r\n\r\n',
    );
    expect([a.status, a.body]).toEqual([200, '{"ok":true}']);
    const last = seen.pop() as Seen;
    const pairs: Array<[string, string]> = [];
    for (let i = 0; i < last.raw.length; i += 2)
      pairs.push([(last.raw[i] as string).toLowerCase(), last.raw[i + 1] as string]);
    expect([last.method, last.url, last.body]).toEqual(["POST", "/v1/x?q=1", '{"a":1}']);
    expect(
      pairs.filter(([k]) => k === "idempotency-key" || k === "content-length" || k === "transfer-encoding"),
    ).toEqual([
      ["idempotency-key", "k1"],
      ["idempotency-key", "k2"],
      ["content-length", "7"],
    ]);
  });

  it("forwards an absolute-form target as its path", async () => {
    const a = await send("GET http://elsewhere.example/v1/y?q=1 HTTP/1.1\r\nHost: a\r\n\r\n");
    expect([a.status, (seen.pop() as Seen).url]).toEqual([200, "/v1/y?q=1"]);
  });

  it("pipes a WebSocket upgrade both ways", async () => {
    const { connect } = await import("node:net");
    const socket = connect(edge.port, "127.0.0.1");
    const received: Buffer[] = [];
    socket.on("data", (d: Buffer) => received.push(d));
    socket.write(
      "GET /ws HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
    );
    await new Promise((r) => setTimeout(r, 200));
    socket.write("ping");
    await new Promise((r) => setTimeout(r, 200));
    socket.destroy();
    const text = Buffer.concat(received).toString();
    expect(text.startsWith("HTTP/1.1 101 Switching Protocols\r\n")).toBe(true);
    expect(text.endsWith("\r\n\r\necho:ping")).toBe(true);
  });
});

/** Polls `done` every 10 ms for up to `ms`; answers whether it came true. */
async function until(done: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (!done()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 10));
  }
  return true;
}

/**
 * A GET from the client address `from`; `first` is what was answered once it holds a JSON body or
 * the stream's opening comment (`: open`, in its chunk), or whatever came within 10 s.
 */
function open(path: string, from: string, accept = "text/event-stream"): { socket: Socket; first: Promise<string> } {
  const socket = connect({ port: edge.port, host: "127.0.0.1", localAddress: from });
  socket.on("error", () => undefined);
  socket.write(`GET ${path} HTTP/1.1\r\nHost: a\r\nAccept: ${accept}\r\n\r\n`);
  const first = new Promise<string>((done) => {
    let text = "";
    const timer = setTimeout(() => done(text), 10_000);
    socket.on("data", (d: Buffer) => {
      text += d.toString("latin1");
      if (/\r\n\r\n(\{.*\}|8\r\n: open\n\n\r\n)$/s.test(text)) (clearTimeout(timer), done(text));
    });
    socket.once("close", () => (clearTimeout(timer), done(text)));
  });
  return { socket, first };
}

const statusOf = (text: string) => text.slice(0, 12);
const tally = (texts: string[]) =>
  texts.reduce<Record<string, number>>((t, x) => ({ ...t, [statusOf(x)]: (t[statusOf(x)] ?? 0) + 1 }), {});

describe("local edge: held requests", { timeout: 60_000 }, () => {
  it("ends the upstream request within 1 s of the client leaving mid-stream or mid-wait", async () => {
    const got = [];
    for (const [path, accept] of [
      ["/held/a-stream", "text/event-stream"],
      ["/held/a-poll?wait=60", "application/json"],
    ] as const) {
      const c = open(path, "127.0.0.1", accept);
      const arrived = await until(() => holding.has(path), 10_000);
      const first = accept === "text/event-stream" ? (await c.first).endsWith("\r\n8\r\n: open\n\n\r\n") : true;
      const left = Date.now();
      c.socket.destroy();
      const closed = await until(() => closedAt.has(path), 10_000);
      got.push([path, arrived, first, closed, closed && (closedAt.get(path) ?? 0) - left < 1_000]);
    }
    expect(got).toEqual([
      ["/held/a-stream", true, true, true, true],
      ["/held/a-poll?wait=60", true, true, true, true],
    ]);
  });

  it("after 300 held streams are opened and dropped, holds none upstream and answers /healthz at once", async () => {
    const flood = Array.from({ length: 300 }, (_, i) => open(`/held/b-${i}`, "127.0.0.1"));
    const firsts = await Promise.all(flood.map((c) => c.first));
    const heldBefore = holding.size;
    for (const c of flood) c.socket.destroy();
    const drained = await until(() => holding.size === 0, 5_000);
    const started = Date.now();
    const health = await rawRequest(edge.port, Buffer.from("GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n"), {
      waitMs: 2_000,
    });
    expect([tally(firsts), heldBefore, drained, health.status, health.body]).toEqual([
      { "HTTP/1.1 200": 64, "HTTP/1.1 429": 236 },
      64,
      true,
      200,
      '{"ok":true}',
    ]);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(codeOf(firsts.find((f) => f.startsWith("HTTP/1.1 429"))?.split("\r\n\r\n")[1] ?? "")).toBe("RATE_LIMITED");
  });

  it("lets neither one client's held streams nor a full quota block another's request or its own short ones", async () => {
    const flood = Array.from({ length: 300 }, (_, i) => open(`/held/c-${i}`, "127.0.0.2"));
    const firsts = await Promise.all(flood.map((c) => c.first));
    const own = open("/healthz", "127.0.0.2", "application/json");
    const other = open("/held/c-other", "127.0.0.3");
    const more = open("/held/c-more", "127.0.0.2");
    const [ownFirst, otherFirst, moreFirst] = await Promise.all([own.first, other.first, more.first]);
    for (const c of [...flood, own, other, more]) c.socket.destroy();
    await until(() => holding.size === 0, 5_000);
    expect([
      statusOf(ownFirst),
      ownFirst.endsWith('\r\n\r\n{"ok":true}'),
      statusOf(otherFirst),
      otherFirst.endsWith("\r\n8\r\n: open\n\n\r\n"),
    ]).toEqual(["HTTP/1.1 200", true, "HTTP/1.1 200", true]);
    expect(tally(firsts)).toEqual({ "HTTP/1.1 200": 64, "HTTP/1.1 429": 236 });
    const [head, body] = moreFirst.split("\r\n\r\n");
    expect([
      statusOf(moreFirst),
      head?.toLowerCase().includes("\r\nretry-after: 1\r\n"),
      JSON.parse(body ?? ""),
    ]).toEqual([
      "HTTP/1.1 429",
      true,
      {
        type: "https://toolgate.dev/problems/rate-limited",
        title: "Too many requests",
        status: 429,
        code: "RATE_LIMITED",
        detail: "This client holds 64 long-polls, event streams or WebSockets already; close one first.",
      },
    ]);
  });
});
