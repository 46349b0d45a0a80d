/**
 * The JSON-RPC pieces of the gate's MCP client (mcp-client.ts): how a request ended, the
 * envelope of a server's message, and the params a notification or request carries.
 * @module
 */
import { PyFloat, type Json, type JsonObject } from "../../../core/json";
import * as z from "../../../core/zod";
import { JsonObjectValue } from "../../../contracts/registry";

/** How one request ended: a result, a JSON-RPC error (the server answered), HTTP 429, or no usable answer. */
export type McpReply =
  | { readonly kind: "result"; readonly result: JsonObject }
  | { readonly kind: "error"; readonly code: number; readonly message: string }
  | { readonly kind: "rate_limited" }
  | { readonly kind: "lost"; readonly detail: string };

/** Every reply but a result. */
export type McpFailure = Exclude<McpReply, { kind: "result" }>;

/** A request without a usable answer, and why. */
export const lost = (detail: string): McpFailure => ({ kind: "lost", detail });

/** One failure in words (an admin reads them; never a body the server sent). */
export function describeFailure(failure: McpFailure, method: string): string {
  if (failure.kind === "error") return `${method} answered the JSON-RPC error ${failure.code}`;
  if (failure.kind === "rate_limited") return `${method} answered HTTP 429`;
  return `${method}: ${failure.detail}`;
}

/** A JSON-RPC message of a server, as the client reads it (the members it uses). */
export const RpcMessage = z.deferred(() =>
  z.object({
    jsonrpc: z.literal("2.0"),
    id: z.optional(z.nullable(z.union([z.string(), z.number()]))),
    method: z.optional(z.string()),
    result: z.optional(JsonObjectValue),
    error: z.optional(z.object({ code: z.number().check(z.int()), message: z.string() })),
  }),
);

/** A message's `params` when they are an object (a notification's are handed on only then). */
export function paramsOf(message: Json): JsonObject | undefined {
  const params =
    typeof message === "object" && message !== null && !Array.isArray(message)
      ? (message as JsonObject)["params"]
      : undefined;
  return typeof params === "object" && params !== null && !Array.isArray(params) && !(params instanceof PyFloat)
    ? params
    : undefined;
}
