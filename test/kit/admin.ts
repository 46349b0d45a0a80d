/** The operator's side of a consumer: admin-token requests under `/v1/consumers/<name>`. */
import { ADMIN_TOKEN, send } from "./gate";

/** An admin answer: the status and the parsed body (`null` for an empty one). */
export interface AdminAnswer {
  status: number;
  // Answers are read field by field in the tests; their shapes are the routes' own.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: Record<string, any> | null;
}

/** An admin answer that keeps the raw text too (for scans of what the operator is shown). */
export interface AdminText extends AdminAnswer {
  text: string;
}

/** Admin requests on one consumer's routes; `path` is relative to `/v1/consumers/<name>`. */
export interface AdminClient {
  /** The consumer's base path, `/v1/consumers/<name>`. */
  readonly base: string;
  /** Sends one request; answers its status and parsed body. */
  call(method: string, path: string, body?: unknown): Promise<AdminAnswer>;
  /** Sends one request; answers its status, text and parsed body. */
  read(method: string, path: string, body?: unknown): Promise<AdminText>;
  /** Sends one request; answers the response as it came. */
  raw(method: string, path: string, body?: unknown): Promise<Response>;
  /** Sends one request; answers only its status. */
  status(method: string, path: string, body?: unknown): Promise<number>;
}

/** The admin client of `consumer`. */
export function adminClient(consumer: string): AdminClient {
  const base = `/v1/consumers/${consumer}`;
  const raw = (method: string, path: string, body?: unknown) => send(method, `${base}${path}`, ADMIN_TOKEN, body);
  const read = async (method: string, path: string, body?: unknown): Promise<AdminText> => {
    const res = await raw(method, path, body);
    const text = await res.text();
    return { status: res.status, text, body: text === "" ? null : (JSON.parse(text) as Record<string, unknown>) };
  };
  return {
    base,
    raw,
    read,
    async call(method, path, body) {
      const { status, body: parsed } = await read(method, path, body);
      return { status, body: parsed };
    },
    async status(method, path, body) {
      return (await raw(method, path, body)).status;
    },
  };
}
