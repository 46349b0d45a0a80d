/**
 * Runtime contracts: the commands entering Runtime (tagged by `type`), run options, interaction
 * decisions, durable events and their usage, and best-effort observations.
 * @module
 */

import * as z from "../../zod";
import { id, json, option, u32, u64 } from "../scalars";
import { InvocationContextSchema } from "./context";
import { PreparedActionSchema } from "./facade";
import { MessageSchema } from "./message";

/** `RunOptions`. */
export const RunOptionsSchema = z.deferred(() =>
  z.object({
    use_case: z.string(),
    model_mode: z.string(),
    access_mode: z.enum(["no_access", "interactive", "full_access"]),
    allow_tools: z.boolean(),
    max_steps: u32,
    credit_budget: option(u64),
    debug: z.boolean(),
  }),
);

/** `InteractionDecision`: one decision per prepared action of a batch. */
export const InteractionDecisionSchema = z.deferred(() =>
  z.object({
    action_id: id,
    proceed: z.boolean(),
  }),
);

/** `Interaction`. */
export const InteractionSchema = z.deferred(() =>
  z.object({
    batch_id: id,
    decisions: z.array(InteractionDecisionSchema),
  }),
);

/** `AgentCommand`, tagged by `type`. */
export const AgentCommandSchema = z.deferred(() =>
  z.discriminatedUnion("type", [
    z.object({
      type: z.literal("enqueue"),
      context: InvocationContextSchema,
      message: MessageSchema,
      options: RunOptionsSchema,
    }),
    z.object({
      type: z.literal("submit_interaction"),
      context: InvocationContextSchema,
      interaction: InteractionSchema,
    }),
    z.object({ type: z.literal("cancel"), context: InvocationContextSchema }),
  ]),
);

/** `UsageSummary`. */
export const UsageSummarySchema = z.deferred(() =>
  z.object({
    model_requests: u32,
    reported_model_requests: u32,
    input_tokens: u64,
    output_tokens: u64,
    cached_input_tokens: option(u64),
    reasoning_output_tokens: option(u64),
    peak_input_tokens: u64,
    credits: option(u64),
    tool_calls: u32,
    window_truncations: u32,
    trimmed_messages: u64,
  }),
);

/** `AgentEvent`, tagged by `type`; `started` is a unit variant. */
export const AgentEventSchema = z.deferred(() =>
  z.discriminatedUnion("type", [
    z.object({ type: z.literal("started") }),
    z.object({
      type: z.literal("interaction_required"),
      batch_id: id,
      actions: z.array(PreparedActionSchema),
      usage: UsageSummarySchema,
    }),
    z.object({ type: z.literal("completed"), result: json, usage: UsageSummarySchema }),
    z.object({ type: z.literal("failed"), code: z.string(), message: z.string(), usage: UsageSummarySchema }),
  ]),
);

/** `DurableEvent`. */
export const DurableEventSchema = z.deferred(() =>
  z.object({
    id,
    sequence: u64,
    context: InvocationContextSchema,
    event: AgentEventSchema,
  }),
);

/** `AgentObservation`, tagged by `type`. */
export const AgentObservationSchema = z.deferred(() =>
  z.discriminatedUnion("type", [
    z.object({ type: z.literal("progress"), status: z.string() }),
    z.object({ type: z.literal("companion_text"), content: z.string(), append: z.boolean() }),
    z.object({ type: z.literal("tool_started"), call_id: id, tool_name: z.string() }),
    z.object({
      type: z.literal("tool_result"),
      call_id: id,
      tool_name: z.string(),
      result: json,
      is_error: z.boolean(),
    }),
    z.object({ type: z.literal("tool_calls_scheduled"), tool_names: z.array(z.string()) }),
    z.object({ type: z.literal("tool_calls_completed"), count: u32 }),
    z.object({ type: z.literal("debug_data"), scope: z.string(), payload: json }),
  ]),
);

export type RunOptions = z.output<typeof RunOptionsSchema>;
export type AccessMode = RunOptions["access_mode"];
export type InteractionDecision = z.output<typeof InteractionDecisionSchema>;
export type Interaction = z.output<typeof InteractionSchema>;
export type AgentCommand = z.output<typeof AgentCommandSchema>;
export type UsageSummary = z.output<typeof UsageSummarySchema>;
export type AgentEvent = z.output<typeof AgentEventSchema>;
export type DurableEvent = z.output<typeof DurableEventSchema>;
export type AgentObservation = z.output<typeof AgentObservationSchema>;
