// The local edge of `npm start`: a strict HTTP/1.1 front on the public port that does locally
// what Cloudflare's edge does in production before a request reaches the Worker. It refuses
// malformed framing (duplicate or invalid Content-Length, Content-Length with
// Transfer-Encoding, bad chunks, a body that ends before its declared length, unknown methods,
// missing Host, oversized heads, a client that stalls) with a 4xx problem from the gate's
// catalog, and forwards everything else unchanged — duplicate headers included, so the gate
// still sees and refuses them itself — to `wrangler dev` on an internal port. WebSocket
// upgrades are piped through as they are.
//
// A client that goes away takes its upstream request with it (a long-poll or event stream frees
// its upstream connection at once, as on Cloudflare). Upstream connections have no global cap, so
// nothing queues behind held ones; each client address may hold at most `maxHeldPerClient`
// long-polls, event streams and WebSockets at once (more are refused with 429 RATE_LIMITED),
// while its short requests, `/healthz` among them, are never counted.
//
// Without it, `wrangler dev` answers such requests itself with 500, 501 or 503 ("Your worker
// restarted mid-request"), or holds the connection open forever.
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { heldLedger, isHeld } from "./local-edge-held.ts";

/** Problems the edge answers with; each code, status and title is in the gate's catalog. */
export const EDGE_PROBLEMS = {
  MALFORMED_HTTP: { status: 400, title: "Malformed HTTP request", reason: "Bad Request" },
  METHOD_NOT_ALLOWED: { status: 405, title: "Method not allowed", reason: "Method Not Allowed" },
  REQUEST_TIMEOUT: { status: 408, title: "Request not received in time", reason: "Request Timeout" },
  BODY_TOO_LARGE: { status: 413, title: "Request body too large", reason: "Payload Too Large" },
  HEADERS_TOO_LARGE: { status: 431, title: "Request head too large", reason: "Request Header Fields Too Large" },
  RATE_LIMITED: { status: 429, title: "Too many requests", reason: "Too Many Requests" },
  UPSTREAM_UNAVAILABLE: { status: 503, title: "The gate is not reachable", reason: "Service Unavailable" },
} as const satisfies Record<string, { status: number; title: string; reason: string }>;

/** The code of an edge refusal. */
export type EdgeProblemCode = keyof typeof EDGE_PROBLEMS;

/** A refusal decided before the body is read: code, detail and extra headers. */
type Refusal = [EdgeProblemCode, string, Record<string, string>?];

/** Methods the gate serves; anything else is 405 here (workerd would answer 501). */
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
/** Hop-by-hop headers (RFC 9110 §7.6.1) and framing the edge recomputes. */
const HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "content-length",
]);

const SLUG = (code: string): string => code.toLowerCase().replace(/_/g, "-");

/** The problem+json body and head of one edge refusal. */
export function edgeProblem(code: EdgeProblemCode, detail: string): { status: number; reason: string; body: string } {
  const p = EDGE_PROBLEMS[code];
  const body = JSON.stringify({
    type: `https://toolgate.dev/problems/${SLUG(code)}`,
    title: p.title,
    status: p.status,
    code,
    detail,
  });
  return { status: p.status, reason: p.reason, body };
}

function rawProblem(socket: Duplex, code: EdgeProblemCode, detail: string, extra = ""): void {
  const { status, reason, body } = edgeProblem(code, detail);
  if (socket.writable) {
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/problem+json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n${extra}\r\n${body}`,
    );
  }
  (socket as Duplex & { destroySoon?: () => void }).destroySoon?.();
  setTimeout(() => socket.destroy(), 1_000).unref();
}

function refuse(
  res: http.ServerResponse,
  code: EdgeProblemCode,
  detail: string,
  headers: Record<string, string> = {},
): void {
  const { status, body } = edgeProblem(code, detail);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(status, {
    "content-type": "application/problem+json",
    "content-length": Buffer.byteLength(body),
    connection: "close",
    ...headers,
  });
  res.end(body);
}

/** The origin-form (path and query) of a request target, or null if it has none. */
function originForm(target: string): string | null {
  if (target.startsWith("/")) return target;
  if (!/^https?:\/\//i.test(target)) return null;
  try {
    const url = new URL(target);
    return `${url.pathname}${url.search}`;
  } catch {
    return null;
  }
}

/**
 * The request's headers for the upstream: every header as sent (repeats kept), minus hop-by-hop;
 * an HTTP/1.0 request without Host gets the edge's own.
 */
function forwardHeaders(rawHeaders: string[], length: number | null, host: string): string[] {
  const out: string[] = [];
  if (!rawHeaders.some((h, i) => i % 2 === 0 && h.toLowerCase() === "host")) out.push("host", host);
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] ?? "";
    if (!HOP.has(name.toLowerCase())) out.push(name, rawHeaders[i + 1] ?? "");
  }
  if (length !== null) out.push("content-length", String(length));
  return out;
}

/**
 * What the edge refuses before reading a body, as `[code, detail, headers?]`, or null: an
 * HTTP/1.1 request without Host, a method the gate does not serve, a target that is not a path
 * (an absolute-form target, RFC 9112 §3.2.2, is served as its path; asterisk- and
 * authority-form are refused), a declared body over the limit.
 */
function preflight(req: http.IncomingMessage, maxBodyBytes: number): Refusal | null {
  if (req.httpVersion === "1.1" && req.headers.host === undefined)
    return ["MALFORMED_HTTP", "An HTTP/1.1 request needs a Host header."];
  if (!METHODS.has(req.method ?? "")) {
    return [
      "METHOD_NOT_ALLOWED",
      `The gate does not serve ${JSON.stringify(String(req.method).slice(0, 20))} requests.`,
      { allow: [...METHODS].join(", ") },
    ];
  }
  if (originForm(req.url ?? "") === null)
    return ["MALFORMED_HTTP", "The request target must be a path (or an absolute http URL)."];
  const declared = req.headers["content-length"];
  if (declared !== undefined && Number(declared) > maxBodyBytes)
    return ["BODY_TOO_LARGE", `The body may have at most ${maxBodyBytes} bytes.`];
  return null;
}

/**
 * Starts the edge on host:port in front of the gate at target (`{ host, port }`). Options:
 * `maxBodyBytes` (default 4 MiB, above every limit of the gate), `requestTimeoutMs` (15 s),
 * `maxHeldPerClient` (64: long-polls, event streams and WebSockets one client address holds at
 * once). Answers `{ server, port, close() }`.
 */
export async function startLocalEdge({
  host = "127.0.0.1",
  port = 0,
  target,
  maxBodyBytes = 4 * 1024 * 1024,
  requestTimeoutMs = 15_000,
  maxHeldPerClient = 64,
}: LocalEdgeOptions): Promise<LocalEdge> {
  const server = http.createServer({
    requestTimeout: requestTimeoutMs,
    headersTimeout: Math.min(10_000, requestTimeoutMs),
    keepAliveTimeout: 5_000,
    maxHeaderSize: 32 * 1024,
    connectionsCheckingInterval: 1_000,
    requireHostHeader: false,
    joinDuplicateHeaders: false,
  });
  // A client may half-close after sending its request (`shutdown(SHUT_WR)`) and still read the
  // answer; by default Node's server then aborts the request and closes the socket unanswered.
  // (A property of Node's server that its types leave out.)
  (server as http.Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  const sockets = new Set<Duplex>();
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  // No cap on upstream sockets: with one, every later request (`/healthz` too) queued behind
  // held long-polls and streams until they ended. Held requests are bounded per client instead.
  const upstream = new http.Agent({ keepAlive: true });
  const held = heldLedger(maxHeldPerClient);
  const tooMany = `This client holds ${maxHeldPerClient} long-polls, event streams or WebSockets already; close one first.`;

  server.on("request", (req, res) => {
    const early = preflight(req, maxBodyBytes);
    if (early !== null) {
      refuse(res, early[0], early[1], early[2]);
      if (early[0] === "BODY_TOO_LARGE") req.destroy();
      else req.resume();
      return;
    }
    // preflight refused a target without a path.
    const path = originForm(req.url ?? "") ?? "/";
    const declared = req.headers["content-length"];
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    const refuseOnce = (code: EdgeProblemCode, detail: string): void => {
      if (refused) return;
      refused = true;
      refuse(res, code, detail);
    };
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBodyBytes) {
        refuseOnce("BODY_TOO_LARGE", `The body may have at most ${maxBodyBytes} bytes.`);
        req.destroy();
      } else if (!refused) chunks.push(chunk);
    });
    req.on("aborted", () => refuseOnce("MALFORMED_HTTP", "The request ended before its body was complete."));
    req.on("error", () => refuseOnce("MALFORMED_HTTP", "The request body could not be read."));
    req.on("end", () => {
      if (refused) return;
      const socket = req.socket;
      const holds = isHeld(req.headers, path);
      // A client that closed its side before a held request is forwarded is gone (see `gone`).
      if (holds && socket.readableEnded) return void res.destroy();
      const release = holds ? held.take(socket.remoteAddress ?? "") : () => {};
      if (release === null) return void refuse(res, "RATE_LIMITED", tooMany, { "retry-after": "1" });
      const body = Buffer.concat(chunks);
      const hasBody = body.length > 0 || declared !== undefined || req.headers["transfer-encoding"] !== undefined;
      const out = http.request(
        {
          host: target.host,
          port: target.port,
          method: req.method,
          path,
          headers: forwardHeaders(
            req.rawHeaders,
            hasBody ? body.length : null,
            `${host}:${(server.address() as AddressInfo).port}`,
          ),
          agent: upstream,
        },
        (answer) => {
          const headers: string[] = [];
          for (let i = 0; i + 1 < answer.rawHeaders.length; i += 2) {
            const raw = answer.rawHeaders[i] ?? "";
            const name = raw.toLowerCase();
            if (name !== "connection" && name !== "keep-alive" && name !== "transfer-encoding")
              headers.push(raw, answer.rawHeaders[i + 1] ?? "");
          }
          res.writeHead(answer.statusCode ?? 502, answer.statusMessage, headers);
          answer.pipe(res);
          answer.on("error", () => res.destroy());
        },
      );
      out.on("error", () => {
        if (!res.destroyed) refuse(res, "UPSTREAM_UNAVAILABLE", "The gate behind this port did not answer.");
      });
      out.once("close", release);
      // The client went away: end the upstream request at once, so a long-poll or an event stream
      // frees its upstream connection (and its held slot) instead of running to its own end. A
      // closed socket is gone for every request; a client that only closed its sending side
      // (`shutdown(SHUT_WR)`) still reads a short answer, but for a held one it is taken as gone:
      // nothing is written to it before the answer, so its leaving would go unnoticed for minutes.
      const gone = (): void => {
        if (res.writableFinished) return;
        out.destroy();
        res.destroy();
      };
      res.once("close", () => {
        socket.off("end", gone);
        gone();
      });
      if (holds) socket.once("end", gone);
      out.end(body);
    });
  });

  // CONNECT (a proxy tunnel) is not served; without a listener Node would drop the socket.
  server.on("connect", (_req, socket) =>
    rawProblem(
      socket,
      "METHOD_NOT_ALLOWED",
      "The gate does not serve CONNECT requests.",
      `allow: ${[...METHODS].join(", ")}\r\n`,
    ),
  );

  // WebSocket upgrades (capability providers, runtime connections): replay the head, then pipe.
  server.on("upgrade", (req, socket, head) => {
    const path = originForm(req.url ?? "");
    if (path === null)
      return rawProblem(socket, "MALFORMED_HTTP", "The request target must be a path (or an absolute http URL).");
    const release = held.take((socket instanceof net.Socket ? socket.remoteAddress : undefined) ?? "");
    if (release === null) return rawProblem(socket, "RATE_LIMITED", tooMany, "retry-after: 1\r\n");
    const up = net.connect(target.port, target.host);
    up.once("close", release);
    const lines = [`${req.method} ${path} HTTP/1.1`];
    for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
    up.on("connect", () => {
      up.write(`${lines.join("\r\n")}\r\n\r\n`);
      if (head.length > 0) up.write(head);
      up.pipe(socket);
      socket.pipe(up);
    });
    const close = (): void => {
      up.destroy();
      socket.destroy();
    };
    up.on("error", () =>
      socket.writable && !up.readableEnded
        ? rawProblem(socket, "UPSTREAM_UNAVAILABLE", "The gate behind this port did not answer.")
        : close(),
    );
    socket.on("error", close);
    up.on("close", () => socket.destroy());
    socket.on("close", () => up.destroy());
  });

  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    const code = error.code;
    if (code === "ERR_HTTP_REQUEST_TIMEOUT")
      return rawProblem(socket, "REQUEST_TIMEOUT", `The request was not complete within ${requestTimeoutMs} ms.`);
    if (code === "HPE_HEADER_OVERFLOW")
      return rawProblem(socket, "HEADERS_TOO_LARGE", "The request line and headers may have at most 32 KiB.");
    if (code === "HPE_INVALID_METHOD")
      return rawProblem(
        socket,
        "METHOD_NOT_ALLOWED",
        "Unknown request method.",
        `allow: ${[...METHODS].join(", ")}\r\n`,
      );
    if (code === "ECONNRESET" || code === "EPIPE") return socket.destroy();
    return rawProblem(socket, "MALFORMED_HTTP", "The request is not well-formed HTTP/1.1.");
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, resolve);
  });
  return {
    server,
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        upstream.destroy();
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

/** What {@link startLocalEdge} takes. */
export interface LocalEdgeOptions {
  host?: string;
  port?: number;
  target: { host: string; port: number };
  maxBodyBytes?: number;
  requestTimeoutMs?: number;
  maxHeldPerClient?: number;
}

/** A running local edge. */
export interface LocalEdge {
  server: http.Server;
  port: number;
  close: () => Promise<void>;
}
