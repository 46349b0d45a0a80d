/**
 * The local edge of `npm start` in front of a recording upstream: malformed framing is refused
 * with the gate's own catalog problems, well-formed requests pass through byte for byte
 * (repeated headers included), WebSocket upgrades are piped.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error plain JavaScript module without declarations
import { EDGE_PROBLEMS, edgeProblem, startLocalEdge } from "../../scripts/local-edge.js";
import { PROBLEM_STATUS, problem, problemResponse, type ProblemCode } from "../../src/worker/problem";
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

beforeAll(async () => {
  upstream = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      seen.push({ method: req.method ?? "", url: req.url ?? "", raw: req.rawHeaders, body: Buffer.concat(chunks).toString() });
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
  edge = await startLocalEdge({ port: 0, target: { host: "127.0.0.1", port: typeof address === "object" && address !== null ? address.port : 0 }, requestTimeoutMs: 1_000 });
});

afterAll(async () => {
  await edge.close();
  upstream.closeAllConnections();
  await new Promise((r) => upstream.close(r));
});

const send = (text: string, options: { halfClose?: boolean; waitMs?: number } = {}) => rawRequest(edge.port, Buffer.from(text, "latin1"), options);
const codeOf = (body: string) => (JSON.parse(body) as { code: string }).code;

describe("local edge", () => {
  it("answers only problems of the gate's catalog, with the gate's status, title and type", async () => {
    for (const code of Object.keys(EDGE_PROBLEMS) as ProblemCode[]) {
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
      ["Content-Length with chunked", `${post}Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}`, 400, "MALFORMED_HTTP"],
      ["bad chunk size", `${post}Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`, 400, "MALFORMED_HTTP"],
      ["body shorter than declared, then EOF", `${post}Content-Length: 100\r\n\r\n{}`, 400, "MALFORMED_HTTP"],
      ["no Host", "POST /x HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}", 400, "MALFORMED_HTTP"],
      ["declared body over the limit", `${post}Content-Length: 99999999999\r\n\r\n{}`, 413, "BODY_TOO_LARGE"],
      ["unknown method", "FOO /x HTTP/1.1\r\nHost: a\r\n\r\n", 405, "METHOD_NOT_ALLOWED"],
      ["known to the parser, not served", "PROPFIND /x HTTP/1.1\r\nHost: a\r\n\r\n", 405, "METHOD_NOT_ALLOWED"],
      ["CONNECT", "CONNECT a:443 HTTP/1.1\r\nHost: a:443\r\n\r\n", 405, "METHOD_NOT_ALLOWED"],
      ["asterisk-form target", "OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n", 400, "MALFORMED_HTTP"],
      ["oversized head", `GET /x HTTP/1.1\r\nHost: a\r\nX-Pad: ${"a".repeat(40_000)}\r\n\r\n`, 431, "HEADERS_TOO_LARGE"],
      ["body never sent", `${post}Content-Length: 100\r\n\r\n{}`, 408, "REQUEST_TIMEOUT", { halfClose: false, waitMs: 4_000 }],
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
    const a = await send('POST /v1/x?q=1 HTTP/1.1\r\nHost: a\r\nIdempotency-Key: k1\r\nIdempotency-Key: k2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{"\r\n5\r\na":1}\r\n0\r\n\r\n');
    expect([a.status, a.body]).toEqual([200, '{"ok":true}']);
    const last = seen.pop() as Seen;
    const pairs: Array<[string, string]> = [];
    for (let i = 0; i < last.raw.length; i += 2) pairs.push([(last.raw[i] as string).toLowerCase(), last.raw[i + 1] as string]);
    expect([last.method, last.url, last.body]).toEqual(["POST", "/v1/x?q=1", '{"a":1}']);
    expect(pairs.filter(([k]) => k === "idempotency-key" || k === "content-length" || k === "transfer-encoding")).toEqual([
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
    socket.write("GET /ws HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n");
    await new Promise((r) => setTimeout(r, 200));
    socket.write("ping");
    await new Promise((r) => setTimeout(r, 200));
    socket.destroy();
    const text = Buffer.concat(received).toString();
    expect(text.startsWith("HTTP/1.1 101 Switching Protocols\r\n")).toBe(true);
    expect(text.endsWith("\r\n\r\necho:ping")).toBe(true);
  });
});
