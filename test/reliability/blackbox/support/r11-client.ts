/**
 * Loopback HTTP client for the R11 load check: `node:http` with a keep-alive agent of as many
 * sockets as the loop has workers, each answer read whole and timed from write to last byte.
 * A socket failure is an answer with status 0 (counted, never thrown).
 */
import { Agent, request as httpRequest } from "node:http";
import { performance } from "node:perf_hooks";

/** One timed answer. */
export interface Timed {
  status: number;
  contentType: string;
  text: string;
  // Parsed body (null when not JSON); read loosely, asserted on exact values.
  json: any;
  ms: number;
}

/** What to send: a JSON body, raw bytes, or nothing; headers override the defaults. */
export interface Outgoing {
  method: string;
  path: string;
  token: string | null;
  body?: unknown;
  raw?: string;
  headers?: Record<string, string>;
}

/** A client of one gate origin (127.0.0.1 only). */
export class LoadClient {
  readonly #agent: Agent;
  readonly #host: string;
  readonly #port: number;

  constructor(base: string, sockets: number) {
    const url = new URL(base);
    if (url.hostname !== "127.0.0.1") throw new Error("the R11 client talks to 127.0.0.1 only");
    this.#host = url.hostname;
    this.#port = Number(url.port);
    this.#agent = new Agent({ keepAlive: true, maxSockets: sockets, maxFreeSockets: sockets, keepAliveMsecs: 1_000 });
  }

  send(out: Outgoing): Promise<Timed> {
    const text = out.raw ?? (out.body === undefined ? undefined : JSON.stringify(out.body));
    const bytes = text === undefined ? undefined : Buffer.from(text);
    const headers: Record<string, string> = {};
    if (out.token !== null) headers.authorization = `Bearer ${out.token}`;
    if (bytes !== undefined) {
      headers["content-type"] = "application/json";
      headers["content-length"] = String(bytes.length);
    }
    Object.assign(headers, out.headers ?? {});
    const started = performance.now();
    return new Promise<Timed>((resolve) => {
      const failed = (error: NodeJS.ErrnoException) => resolve({ status: 0, contentType: "", text: `socket: ${error.code ?? error.message}`, json: null, ms: performance.now() - started });
      const req = httpRequest({ host: this.#host, port: this.#port, method: out.method, path: out.path, headers, agent: this.#agent, timeout: 30_000 }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("error", failed);
        res.on("end", () => {
          const body = Buffer.concat(chunks).toString("utf8");
          let json: unknown = null;
          try {
            json = body === "" ? null : JSON.parse(body);
          } catch {
            json = null;
          }
          resolve({ status: res.statusCode ?? 0, contentType: res.headers["content-type"] ?? "", text: body, json, ms: performance.now() - started });
        });
      });
      req.on("timeout", () => req.destroy(Object.assign(new Error("timeout"), { code: "ETIMEDOUT" })));
      req.on("error", failed);
      req.end(bytes);
    });
  }

  close(): void {
    this.#agent.destroy();
  }
}
