/**
 * Raw HTTP/1.1 over a TCP socket: bytes no HTTP client library would send (lying or repeated
 * framing headers, invalid bytes, stalls), and a parser of whatever comes back.
 */
import { connect } from "node:net";

/** One answer read off the socket (`status` 0: none before the socket closed or timed out). */
export interface RawAnswer {
  status: number;
  headers: Map<string, string[]>;
  body: string;
  /** "closed" (no answer, the server closed), "timeout" (no answer in time), "answered". */
  outcome: "answered" | "closed" | "timeout";
}

function parse(bytes: Buffer): RawAnswer | null {
  let rest = bytes;
  for (;;) {
    const end = rest.indexOf("\r\n\r\n");
    if (end < 0) return null;
    const head = rest.subarray(0, end).toString("latin1").split("\r\n");
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head[0] ?? "")?.[1] ?? "0");
    const headers = new Map<string, string[]>();
    for (const line of head.slice(1)) {
      const at = line.indexOf(":");
      if (at < 0) continue;
      const name = line.slice(0, at).trim().toLowerCase();
      headers.set(name, [...(headers.get(name) ?? []), line.slice(at + 1).trim()]);
    }
    const body = rest.subarray(end + 4);
    // An interim 1xx answer (100 Continue) precedes the final one.
    if (status >= 100 && status < 200) {
      rest = body;
      continue;
    }
    const length = headers.get("content-length")?.[0];
    if (length !== undefined) {
      if (body.length < Number(length)) return null;
      return { status, headers, body: body.subarray(0, Number(length)).toString("utf8"), outcome: "answered" };
    }
    if (headers.get("transfer-encoding")?.[0]?.toLowerCase() === "chunked") {
      let text = "";
      let at = 0;
      for (;;) {
        const eol = body.indexOf("\r\n", at);
        if (eol < 0) return null;
        const size = Number.parseInt(body.subarray(at, eol).toString("latin1"), 16);
        if (Number.isNaN(size)) return null;
        if (size === 0) return { status, headers, body: text, outcome: "answered" };
        if (body.length < eol + 2 + size) return null;
        text += body.subarray(eol + 2, eol + 2 + size).toString("utf8");
        at = eol + 4 + size;
      }
    }
    return null;
  }
}

/** Sends `bytes`, optionally half-closes, and reads one answer (or gives up after `waitMs`). */
export function rawRequest(
  port: number,
  bytes: Buffer,
  options: { halfClose?: boolean; waitMs?: number } = {},
): Promise<RawAnswer> {
  return new Promise((done) => {
    const socket = connect(port, "127.0.0.1");
    let received = Buffer.alloc(0);
    let settled = false;
    const finish = (outcome: "closed" | "timeout") => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const answer = parse(received);
      done(answer ?? { status: 0, headers: new Map(), body: received.toString("latin1").slice(0, 200), outcome });
    };
    const timer = setTimeout(() => finish("timeout"), options.waitMs ?? 5_000);
    socket.on("data", (d: Buffer) => {
      received = Buffer.concat([received, d]);
      const answer = parse(received);
      if (answer !== null && !settled) {
        settled = true;
        clearTimeout(timer);
        socket.destroy();
        done(answer);
      }
    });
    socket.on("close", () => finish("closed"));
    socket.on("error", () => finish("closed"));
    socket.write(bytes);
    if (options.halfClose ?? true) socket.end();
  });
}
