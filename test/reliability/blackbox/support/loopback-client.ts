/**
 * Loopback HTTP client of the black-box checks: `node:http` with a keep-alive agent of
 * `sockets` connections (a burst of 64 goes out on 64 connections at once; the global fetch's
 * pool is not configurable without importing undici). Requests can be prepared ahead and
 * released together; every answer is read whole and timed from write to last byte. A socket
 * failure or timeout is an answer with status 0 — counted by the checks, never thrown.
 */
import { Agent, request as httpRequest } from "node:http";
import { performance } from "node:perf_hooks";

/** One answer, read whole. */
export interface Reply {
  status: number;
  contentType: string;
  retryAfter: string | undefined;
  text: string;
  // Parsed body (null when not JSON); the checks read it loosely and assert on exact values.
  json: any;
  ms: number;
}

/** What to send: a JSON body, raw text, or nothing; `headers` override the defaults. */
export interface Outgoing {
  method: string;
  path: string;
  token: string | null;
  body?: unknown;
  raw?: string;
  headers?: Record<string, string>;
}

/** A request serialized ahead of its release. */
export interface Prepared {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
}

/** A client of one gate origin (127.0.0.1 only). */
export class LoopbackClient {
  readonly #agent: Agent;
  readonly #host: string;
  readonly #port: number;
  /** Connections opened, and requests sent on a kept-alive one (diagnostics). */
  opened = 0;
  reused = 0;

  constructor(base: string, sockets: number) {
    const url = new URL(base);
    if (url.hostname !== "127.0.0.1") throw new Error("the black-box client talks to 127.0.0.1 only");
    this.#host = url.hostname;
    this.#port = Number(url.port);
    this.#agent = new Agent({ keepAlive: true, maxSockets: sockets, maxFreeSockets: sockets, keepAliveMsecs: 1_000 });
  }

  /** Serializes a request now, so a burst only writes bytes. */
  prepare(out: Outgoing): Prepared {
    const text = out.raw ?? (out.body === undefined ? undefined : JSON.stringify(out.body));
    const body = text === undefined ? undefined : Buffer.from(text);
    const headers: Record<string, string> = {};
    if (out.token !== null) headers.authorization = `Bearer ${out.token}`;
    if (body !== undefined) {
      headers["content-type"] = "application/json";
      headers["content-length"] = String(body.length);
    }
    return { method: out.method, path: out.path, headers: { ...headers, ...out.headers }, body };
  }

  /** Sends a prepared request (written synchronously) and reads its answer. */
  fire(p: Prepared, timeoutMs = 30_000): Promise<Reply> {
    const started = performance.now();
    return new Promise((resolve) => {
      const failed = (error: NodeJS.ErrnoException) =>
        resolve({
          status: 0,
          contentType: "",
          retryAfter: undefined,
          text: `socket: ${error.code ?? error.message}`,
          json: null,
          ms: performance.now() - started,
        });
      const req = httpRequest(
        {
          host: this.#host,
          port: this.#port,
          method: p.method,
          path: p.path,
          headers: p.headers,
          agent: this.#agent,
          timeout: timeoutMs,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("error", failed);
          res.on("end", () => {
            const text = Buffer.concat(chunks).toString("utf8");
            let json: unknown = null;
            try {
              json = text === "" ? null : JSON.parse(text);
            } catch {
              json = null;
            }
            const retry = res.headers["retry-after"];
            resolve({
              status: res.statusCode ?? 0,
              contentType: res.headers["content-type"] ?? "",
              retryAfter: typeof retry === "string" ? retry : undefined,
              text,
              json,
              ms: performance.now() - started,
            });
          });
        },
      );
      req.on("timeout", () => req.destroy(Object.assign(new Error("timeout"), { code: "ETIMEDOUT" })));
      req.on("error", failed);
      req.on("socket", () => {
        if (req.reusedSocket) this.reused += 1;
        else this.opened += 1;
      });
      req.end(p.body);
    });
  }

  send(out: Outgoing): Promise<Reply> {
    return this.fire(this.prepare(out));
  }

  /** Releases all prepared requests in the same tick and waits for every answer. */
  burst(prepared: readonly Prepared[]): Promise<Reply[]> {
    return Promise.all(prepared.map((p) => this.fire(p)));
  }

  close(): void {
    this.#agent.destroy();
  }
}
