/** Test WebSockets to the gate: runtime and provider connects, with a message queue and the close code. */
import { gate } from "../../kit";

/** A connected test WebSocket. */
export interface TestSocket {
  ws: WebSocket;
  /** The next text message (fails after 3 s). */
  next(): Promise<string>;
  /** Every message received so far and not yet taken, after waiting `ms`. */
  drain(ms?: number): Promise<string[]>;
  /** Resolves with the close code once the gate closed the socket. */
  closed: Promise<number>;
  /** Sends a text message; `false` when the socket is already closed on this side. */
  trySend(text: string): boolean;
}

/** An upgrade answer: the socket on 101, else the refusal. */
export type Upgrade = { status: 101; socket: TestSocket } | { status: number; response: Response };

function wrap(ws: WebSocket): TestSocket {
  const queue: string[] = [];
  const waiters: Array<(text: string) => void> = [];
  let onClose: (code: number) => void = () => {};
  const closed = new Promise<number>((resolve) => (onClose = resolve));
  ws.addEventListener("message", (e) => {
    const text = typeof e.data === "string" ? e.data : "<binary>";
    const waiter = waiters.shift();
    if (waiter === undefined) queue.push(text);
    else waiter(text);
  });
  ws.addEventListener("close", (e) => onClose(e.code));
  ws.accept();
  return {
    ws,
    closed,
    next: () => {
      const queued = queue.shift();
      if (queued !== undefined) return Promise.resolve(queued);
      return new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("no message within 10 s")), 10_000);
        waiters.push((text) => {
          clearTimeout(timer);
          resolve(text);
        });
      });
    },
    drain: async (ms = 300) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return queue.splice(0, queue.length);
    },
    trySend: (text) => {
      try {
        ws.send(text);
        return true;
      } catch {
        return false;
      }
    },
  };
}

async function upgrade(path: string, headers: Record<string, string>): Promise<Upgrade> {
  const res = await gate(path, { headers: { upgrade: "websocket", ...headers } });
  if (res.status !== 101) return { status: res.status, response: res };
  if (res.webSocket === null) throw new Error("no WebSocket in the 101 answer");
  return { status: 101, socket: wrap(res.webSocket) };
}

/** `GET …/runtime/connect` with a bearer token. */
export function runtimeUpgrade(consumer: string, token: string): Promise<Upgrade> {
  return upgrade(`/v1/consumers/${consumer}/runtime/connect`, { authorization: `Bearer ${token}` });
}

/** `GET …/capability/providers/{provider}/connect` with the credential as a subprotocol (as a browser does). */
export function providerUpgrade(consumer: string, provider: string, token: string): Promise<Upgrade> {
  return upgrade(`/v1/consumers/${consumer}/capability/providers/${provider}/connect`, {
    "sec-websocket-protocol": `toolgate-provider-v1, bearer.${token}`,
  });
}

/** The socket of an upgrade that must succeed. */
export function opened(up: Upgrade): TestSocket {
  if (up.status !== 101 || !("socket" in up)) throw new Error(`expected 101, got ${up.status}`);
  return up.socket;
}
