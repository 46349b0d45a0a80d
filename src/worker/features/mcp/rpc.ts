import { PyFloat, readJson, type Json, type JsonObject } from "../../../core/json";
import type * as z from "../../../core/zod";
import { RPC_ERRORS } from "../../../contracts/mcp";
import { describeIssues } from "../../http/body";
import type { Problem } from "../../http/problem";
import { STORED_JSON } from "../../kernel/sql";

/*
 * The JSON-RPC answers of the MCP service's methods and the JSON they read: the service, its tasks
 * and `tools/call` import them as one namespace (`import * as jsonRpc from "./rpc"`).
 */

/** What a method answers: a JSON-RPC `result`, or a JSON-RPC `error` (both over HTTP 200). */
export type Answer = { readonly result: JsonObject } | { readonly error: JsonObject };

/** A result. */
export function result(value: JsonObject): Answer {
  return { result: value };
}

/** An error with its code, message and (optional) data. */
export function error(code: number, message: string, data?: JsonObject): Answer {
  return { error: data === undefined ? { code, message } : { code, message, data } };
}

/** Params outside a method's contract (-32602, the issues without values). */
export function invalidParams(message: string): Answer {
  return error(RPC_ERRORS.invalidParams, message);
}

/** A method's params checked against its contract, or the -32602 answer. */
export function params<S extends z.ZodMiniType>(
  schema: S,
  given: JsonObject | undefined,
): { ok: true; value: z.output<S> } | { ok: false; answer: Answer } {
  const parsed = schema.safeParse(given ?? {});
  return parsed.success
    ? { ok: true, value: parsed.data }
    : { ok: false, answer: invalidParams(`Invalid params: ${describeIssues(parsed.error)}`) };
}

/** The JSON-RPC error code of a refusal of the gate: `-32602` for a request outside its contract, `-32000` otherwise. */
export function refusalCode(p: Problem): number {
  const invalid =
    p.code === "INVALID_REQUEST" || p.code === "INVALID_HOST_CONTEXT" || p.code === "INVALID_PROVIDER_ITEM";
  return invalid ? RPC_ERRORS.invalidParams : RPC_ERRORS.refused;
}

/**
 * A refusal of the gate (admission, identity, the engine's host context) as a JSON-RPC error
 * ({@link refusalCode}), the problem code (and any `Retry-After` seconds) in `data`.
 */
export function refusal(p: Problem): Answer {
  const data: JsonObject =
    p.retryAfterSeconds === undefined ? { code: p.code } : { code: p.code, retry_after_seconds: p.retryAfterSeconds };
  return error(refusalCode(p), p.detail, data);
}

/** A JSON object this object wrote itself (an answer of the tool-call path, a stored result); anything else is a bug. */
export function storedObject(text: string, what: string): JsonObject {
  // Our own canonical text: never refused for its size (a UTF-16 unit is at most 3 UTF-8 bytes).
  const read = readJson(text, { ...STORED_JSON, maxBytes: Math.max(STORED_JSON.maxBytes, text.length * 3) });
  if (!read.ok || typeof read.value !== "object" || read.value === null || Array.isArray(read.value))
    throw new Error(`${what} is not a JSON object`);
  return read.value as JsonObject;
}

/** A plain JSON object member (not an array, not null), or undefined. */
export function objectMember(value: JsonObject, key: string): JsonObject | undefined {
  const member: Json | undefined = Object.hasOwn(value, key) ? value[key] : undefined;
  return typeof member === "object" && member !== null && !Array.isArray(member) && !(member instanceof PyFloat)
    ? member
    : undefined;
}
