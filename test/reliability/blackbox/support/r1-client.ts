/**
 * Loopback HTTP client for the R1 checks against `wrangler dev`: `node:http` with a keep-alive
 * agent of 64 sockets, so a burst of 64 requests goes out on 64 connections at once (no new
 * dependency; the global fetch's pool is not configurable without importing undici).
 */
import { Agent, request as httpRequest } from "node:http";

/** One answer, read whole. */
export interface Reply {
  status: number;
  contentType: string;
  retryAfter: string | undefined;
  text: string;
  // Parsed body (null when not JSON); the tests read it loosely and assert on exact values.
  json: any;
}

/** A request prepared ahead of its release. */
export interface Prepared {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
}

/** A client of one gate origin (127.0.0.1 only). */
export class GateClient {
  readonly #agent: Agent;
  /** Connections opened and requests sent on a kept-alive one (diagnostics). */
  opened = 0;
  reused = 0;
  readonly #host: string;
  readonly #port: number;

  constructor(base: string, sockets = 64) {
    const url = new URL(base);
    if (url.hostname !== "127.0.0.1") throw new Error("the R1 client talks to 127.0.0.1 only");
    this.#host = url.hostname;
    this.#port = Number(url.port);
    this.#agent = new Agent({ keepAlive: true, maxSockets: sockets, maxFreeSockets: sockets, keepAliveMsecs: 1_000 });
  }

  /** Builds a request (body serialized now, so a burst only writes bytes). */
  prepare(method: string, path: string, token: string, body?: unknown): Prepared {
    const bytes = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (bytes !== undefined) {
      headers["content-type"] = "application/json";
      headers["content-length"] = String(bytes.length);
    }
    return { method, path, headers, body: bytes };
  }

  /** Sends a prepared request; the request is written synchronously, the answer awaited. */
  fire(p: Prepared): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        { host: this.#host, port: this.#port, method: p.method, path: p.path, headers: p.headers, agent: this.#agent },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("error", reject);
          res.on("end", () => {
            const text = Buffer.concat(chunks).toString("utf8");
            let json: unknown = null;
            try {
              json = text === "" ? null : JSON.parse(text);
            } catch {
              json = null;
            }
            const retry = res.headers["retry-after"];
            resolve({ status: res.statusCode ?? 0, contentType: res.headers["content-type"] ?? "", retryAfter: typeof retry === "string" ? retry : undefined, text, json });
          });
        },
      );
      req.on("error", reject);
      req.on("socket", () => {
        if (req.reusedSocket) this.reused += 1;
        else this.opened += 1;
      });
      req.end(p.body);
    });
  }

  send(method: string, path: string, token: string, body?: unknown): Promise<Reply> {
    return this.fire(this.prepare(method, path, token, body));
  }

  /** Releases all prepared requests in the same tick and waits for every answer. */
  burst(prepared: readonly Prepared[]): Promise<Reply[]> {
    return Promise.all(prepared.map((p) => this.fire(p)));
  }

  close(): void {
    this.#agent.destroy();
  }
}
