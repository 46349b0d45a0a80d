/**
 * `toolgate admin`'s HTTP: the base URL, the token of each role (from the environment only),
 * problems turned into one line and an exit status, JSON read with the strict reader, and the
 * walk of every page of a cursor list.
 * @module
 */
import { canonicalJson, readJson, PyFloat, type Json, type JsonObject } from "../core/json";
import { err, ok, type Result } from "../core/result";
import type { CliIo } from "./io";

/** Who a command acts as: each has its own environment variable. */
export type Role = "admin" | "approver" | "auditor";

/** The variable each role's token is read from. */
export const TOKEN_VARIABLES: Readonly<Record<Role, string>> = {
  admin: "TOOLGATE_ADMIN_TOKEN",
  approver: "TOOLGATE_APPROVER_TOKEN",
  auditor: "TOOLGATE_AUDITOR_TOKEN",
};

/** The gate's address when neither `--url` nor `TOOLGATE_URL` names one (`npm start`). */
export const DEFAULT_URL = "http://127.0.0.1:8787";

/** How a command ends early: 2 for the caller's mistake (usage, a missing or refused token), 1 for the gate's answer. */
export interface Exit {
  readonly status: 1 | 2;
  readonly message: string;
}

/** A step of a command: a value, or how the command ends. */
export type Step<T> = Result<T, Exit>;

/** Largest JSON answer read (a page of audit entries can be large). */
const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

/** Largest number of pages walked (a gate answering the same cursor forever is stopped). */
const MAX_PAGES = 1_000_000;

/** An exit of the caller's making (exit 2). */
export function usageExit(message: string): Exit {
  return { status: 2, message };
}

/** An exit for what the gate answered (exit 1). */
export function gateExit(message: string): Exit {
  return { status: 1, message };
}

/** A JSON object, or undefined. */
export function objectOf(value: Json | undefined): JsonObject | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof PyFloat)
    ? value
    : undefined;
}

/** A member's text ("" when it is not a string). */
export function textOf(object: JsonObject | undefined, key: string): string {
  const value = object?.[key];
  return typeof value === "string" ? value : "";
}

/** A member's text, or null when it is null or absent. */
export function textOrNull(object: JsonObject | undefined, key: string): string | null {
  const value = object?.[key];
  return typeof value === "string" ? value : null;
}

/** A member's strings (other entries dropped; [] when it is not an array). */
export function textsOf(object: JsonObject | undefined, key: string): string[] {
  const value = object?.[key];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/** A member's integer, or null. */
export function intOf(object: JsonObject | undefined, key: string): number | null {
  const value = object?.[key];
  return typeof value === "number" && Number.isSafeInteger(value) ? value : null;
}

/** Reads a file a command was given; an unreadable one is the caller's mistake (exit 2). */
export function readFileStep(io: CliIo, path: string): Step<Uint8Array> {
  try {
    return ok(io.readFile(path));
  } catch (caught) {
    return err(usageExit(`cannot read ${path} (${reasonOf(caught)})`));
  }
}

/** Reads an answer's text with the strict reader. */
export function readAnswer(text: string): Json | undefined {
  const read = readJson(text, { maxBytes: MAX_ANSWER_BYTES });
  return read.ok ? read.value : undefined;
}

/** One line for a problem answer (RFC 9457): title, status, code, detail, and the offending path if any. */
function problemLine(status: number, text: string): string {
  const body = objectOf(readAnswer(text));
  const field = (name: string) => (typeof body?.[name] === "string" ? body[name] : undefined);
  const code = field("code");
  if (body === undefined || code === undefined) return `HTTP ${status} (not a problem answer)`;
  const path = field("path");
  return `${field("title") ?? code} (${status} ${code}): ${field("detail") ?? ""}${path === undefined || path === "" ? "" : ` at ${path}`}`;
}

/** What a request sends. */
export interface RequestOptions {
  readonly role: Role | null;
  readonly method?: "GET" | "PUT" | "POST" | "PATCH" | "DELETE";
  /** A JSON body (bytes as read from a file, or text). */
  readonly body?: Uint8Array | string;
  /** The body's media type when it is not plain JSON (a PATCH's merge patch). */
  readonly mediaType?: "application/merge-patch+json";
}

/** A JSON answer: the gate's text as it came, and its value. */
export interface Answer {
  readonly text: string;
  readonly value: Json;
}

/** The gate at one base URL, with the caller's environment. */
export class GateClient {
  readonly #io: CliIo;
  readonly base: string;

  private constructor(io: CliIo, base: string) {
    this.#io = io;
    this.base = base;
  }

  /** The client of `--url` (or `TOOLGATE_URL`, or {@link DEFAULT_URL}); a URL that is not http(s) is a usage error. */
  static of(io: CliIo, url: string | undefined): Step<GateClient> {
    const text = url ?? io.env?.TOOLGATE_URL ?? DEFAULT_URL;
    let parsed: URL;
    try {
      parsed = new URL(text);
    } catch {
      return err(usageExit(`not a URL: ${text}`));
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
      return err(usageExit(`the gate's URL is http or https: ${text}`));
    if (parsed.search !== "" || parsed.hash !== "")
      return err(usageExit(`the gate's URL has no query or fragment: ${text}`));
    return ok(new GateClient(io, parsed.href.replace(/\/+$/, "")));
  }

  /** A role's token, or the exit that names its variable (the value is never shown). */
  token(role: Role): Step<string> {
    const variable = TOKEN_VARIABLES[role];
    const value = this.#io.env?.[variable];
    if (value === undefined || value === "")
      return err(usageExit(`${variable} is not set (tokens are read from the environment only, never from a flag)`));
    return ok(value);
  }

  /** Sends one request; a 2xx answers the response, anything else the exit it means. */
  async send(path: string, options: RequestOptions): Promise<Step<Response>> {
    const headers: Record<string, string> = { accept: "application/json" };
    if (options.role !== null) {
      const token = this.token(options.role);
      if (!token.ok) return token;
      headers.authorization = `Bearer ${token.value}`;
    }
    if (options.body !== undefined) headers["content-type"] = options.mediaType ?? "application/json";
    const method = options.method ?? "GET";
    let response: Response;
    try {
      response = await (this.#io.fetch ?? fetch)(`${this.base}${path}`, {
        method,
        headers,
        ...(options.body === undefined ? {} : { body: options.body }),
      });
    } catch (caught) {
      return err(gateExit(`cannot reach ${this.base} (${reasonOf(caught)})`));
    }
    if (response.ok) return ok(response);
    const text = await response.text();
    const line = problemLine(response.status, text);
    const code = objectOf(readAnswer(text))?.code;
    // The token itself was refused (a wrong secret, an unknown, revoked or expired credential, one of another kind).
    if (options.role !== null && (response.status === 401 || code === "FORBIDDEN" || code === "APPROVER_NOT_ALLOWED")) {
      return err(usageExit(`the gate refused the token in ${TOKEN_VARIABLES[options.role]}: ${line}`));
    }
    return err(gateExit(`${method} ${path}: ${line}`));
  }

  /** Sends one request and reads its JSON answer. */
  async json(path: string, options: RequestOptions): Promise<Step<Answer>> {
    const response = await this.send(path, options);
    if (!response.ok) return response;
    const text = await response.value.text();
    const value = readAnswer(text);
    if (value === undefined) return err(gateExit(`${options.method ?? "GET"} ${path}: the answer is not JSON`));
    return ok({ text, value });
  }

  /** Sends one request whose answer has no body (204). */
  async done(path: string, options: RequestOptions): Promise<Step<null>> {
    const response = await this.send(path, options);
    if (!response.ok) return response;
    await response.value.body?.cancel();
    return ok(null);
  }

  /**
   * Every item of a cursor list: pages of `{<key>: [...], next_cursor}` followed until
   * `next_cursor` is null. `path` may carry a query already.
   */
  async pages(path: string, key: string, role: Role): Promise<Step<Json[]>> {
    const items: Json[] = [];
    let cursor: string | null = null;
    for (let n = 0; n < MAX_PAGES; n++) {
      const url: string =
        cursor === null ? path : `${path}${path.includes("?") ? "&" : "?"}cursor=${encodeURIComponent(cursor)}`;
      const answer = await this.json(url, { role });
      if (!answer.ok) return answer;
      const page = objectOf(answer.value.value);
      const list = page?.[key];
      const next = page?.next_cursor;
      if (!Array.isArray(list) || (next !== null && typeof next !== "string"))
        return err(gateExit(`GET ${path}: not a page of ${key}`));
      items.push(...list);
      if (next === null || next === cursor) return ok(items);
      cursor = next;
    }
    return err(gateExit(`GET ${path}: more than ${MAX_PAGES} pages`));
  }
}

/** A short reason for a failed request or read, never a request's headers. */
export function reasonOf(caught: unknown): string {
  if (caught instanceof Error) {
    const cause = caught.cause;
    // fetch's own TypeError ("fetch failed") carries the reason as its cause.
    if (cause instanceof Error) return "code" in cause && typeof cause.code === "string" ? cause.code : cause.message;
    if ("code" in caught && typeof caught.code === "string") return caught.code;
    return caught.message;
  }
  return String(caught);
}

/** JSON for `--json`: canonical text of a value the strict reader read (floats stay as written). */
export function jsonLine(value: Json | Json[]): string {
  return `${canonicalJson(value)}\n`;
}

/** A consumer name as the gate accepts it in a path. */
export const CONSUMER_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
