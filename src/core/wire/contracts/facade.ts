/**
 * App Facade contracts: the prepared action and its user-facing preview (a camelCase island),
 * the facade request and result, and the transport's request (tagged by `phase`) and response
 * (tagged by `type`, with the unit variant `rejected`).
 * @module
 */

import * as z from "../../zod";
import { f64, id, json, option, skipIfNone, u64 } from "../scalars";
import { ContextGenerationSchema, InvocationContextSchema } from "./context";

/** `PreviewValue`, tagged by `type`. */
export const PreviewValueSchema = z.deferred(() =>
  z.discriminatedUnion("type", [
    z.object({ type: z.literal("text"), text: z.string() }),
    z.object({ type: z.literal("text_list"), items: z.array(z.string()) }),
    z.object({ type: z.literal("number"), value: f64 }),
    z.object({ type: z.literal("bool"), value: z.boolean() }),
  ]),
);

/** `PreviewDetail`. */
export const PreviewDetailSchema = z.deferred(() =>
  z.object({
    label: z.string(),
    value: PreviewValueSchema,
  }),
);

/** `ClientTask`, tagged by `type`, fields camelCase. */
export const ClientTaskSchema = z.deferred(() =>
  z.discriminatedUnion("type", [
    z.object({ type: z.literal("install_integrations"), integrationIds: z.array(z.string()) }),
  ]),
);

/** `InteractionPreview` (camelCase). `tone` defaults to `normal` and `details` to `[]`. */
export const InteractionPreviewSchema = z.deferred(() =>
  z.object({
    actionCode: z.string(),
    title: z.string(),
    message: z.string(),
    tone: z._default(z.enum(["normal", "danger"]), "normal"),
    details: z._default(z.array(PreviewDetailSchema), []),
    proceedLabel: z.string(),
    rejectLabel: z.string(),
    clientTask: skipIfNone(ClientTaskSchema),
  }),
);

/** `PreparedAction`: preview, opaque plan (`payload`, `null` when missing) and the facade revision. */
export const PreparedActionSchema = z.deferred(() =>
  z.object({
    action_id: id,
    operation_id: id,
    preview: InteractionPreviewSchema,
    payload: z._default(json, null),
    revision: u64,
    approval: z.enum(["never", "when_interactive", "always"]),
    interaction_kind: z.enum(["approval", "user_action"]),
  }),
);

/** `FacadeRequest`: the Agent-selected canonical `/app/...` call. */
export const FacadeRequestSchema = z.deferred(() =>
  z.object({
    operation_id: id,
    target: z.string(),
    input: json,
  }),
);

/** `ContextInvalidation`: a new generation after a mutation changed prompt facts. */
export const ContextInvalidationSchema = z.deferred(() =>
  z.object({
    generation: ContextGenerationSchema,
  }),
);

/** `FacadeResult`. */
export const FacadeResultSchema = z.deferred(() =>
  z.object({
    value: json,
    continuation: skipIfNone(PreparedActionSchema),
    context_invalidation: skipIfNone(ContextInvalidationSchema),
  }),
);

/** `AppFacadeRequest`, tagged by `phase`. */
export const AppFacadeRequestSchema = z.deferred(() =>
  z.discriminatedUnion("phase", [
    z.object({ phase: z.literal("invoke"), context: InvocationContextSchema, request: FacadeRequestSchema }),
    z.object({ phase: z.literal("prepare"), context: InvocationContextSchema, request: FacadeRequestSchema }),
    z.object({ phase: z.literal("commit"), context: InvocationContextSchema, action: PreparedActionSchema }),
    z.object({ phase: z.literal("reject"), context: InvocationContextSchema, action: PreparedActionSchema }),
  ]),
);

/** `AppFacadeResponse`, tagged by `type`. */
export const AppFacadeResponseSchema = z.deferred(() =>
  z.discriminatedUnion("type", [
    z.object({ type: z.literal("result"), result: FacadeResultSchema }),
    z.object({ type: z.literal("prepared"), action: PreparedActionSchema }),
    z.object({ type: z.literal("rejected") }),
    z.object({ type: z.literal("failed"), code: z.string(), message: z.string(), retry_after_ms: option(u64) }),
  ]),
);

export type PreviewValue = z.output<typeof PreviewValueSchema>;
export type PreviewDetail = z.output<typeof PreviewDetailSchema>;
export type ClientTask = z.output<typeof ClientTaskSchema>;
export type InteractionPreview = z.output<typeof InteractionPreviewSchema>;
export type PreparedAction = z.output<typeof PreparedActionSchema>;
export type FacadeRequest = z.output<typeof FacadeRequestSchema>;
export type ContextInvalidation = z.output<typeof ContextInvalidationSchema>;
export type FacadeResult = z.output<typeof FacadeResultSchema>;
export type AppFacadeRequest = z.output<typeof AppFacadeRequestSchema>;
export type AppFacadeResponse = z.output<typeof AppFacadeResponseSchema>;
