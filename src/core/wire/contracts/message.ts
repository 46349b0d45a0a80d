/**
 * llm_api message contracts carried by `enqueue`: `Message`, its `ContentPart`s (internally
 * tagged by `type`; `tool_call` flattens `ToolCall` beside the tag), `Image` (camelCase, every
 * field optional and left out when empty) and the private `Continuation`.
 * @module
 */

import * as z from "../../zod";
import { i64, id, json, skipIfNone } from "../scalars";

/** `Image`. The Rust field types are known only from the schema; `createdAt` is taken as `i64`. */
export const ImageSchema = z.deferred(() =>
  z.object({
    url: skipIfNone(z.string()),
    base64: skipIfNone(z.string()),
    mimeType: skipIfNone(z.string()),
    createdAt: skipIfNone(i64),
  }),
);

/** `ContentPart`, tagged by `type`. */
export const ContentPartSchema = z.deferred(() =>
  z.discriminatedUnion("type", [
    z.object({ type: z.literal("text"), text: z.string() }),
    z.object({ type: z.literal("artifact"), uri: z.string(), mime_type: z.string() }),
    z.object({ type: z.literal("image"), image: ImageSchema }),
    z.object({ type: z.literal("tool_call"), id, name: z.string(), arguments: json }),
    z.object({ type: z.literal("tool_result"), call_id: id, result: json, is_error: z.boolean() }),
  ]),
);

/** `Continuation`: private model state, never part of a user transcript. */
export const ContinuationSchema = z.deferred(() =>
  z.object({
    format: z.string(),
    compatibility_key: z.string(),
    payload: json,
  }),
);

/** `Message`. */
export const MessageSchema = z.deferred(() =>
  z.object({
    role: z.enum(["system", "user", "assistant", "tool"]),
    content: z.array(ContentPartSchema),
    continuation: skipIfNone(ContinuationSchema),
  }),
);

export type Image = z.output<typeof ImageSchema>;
export type ContentPart = z.output<typeof ContentPartSchema>;
export type Continuation = z.output<typeof ContinuationSchema>;
export type Message = z.output<typeof MessageSchema>;
