/**
 * The frozen LLM execution plan: routes, their model snapshot, and llm_api's
 * `GenerationSupport` in catalog spelling (camelCase). `LlmModelSnapshot` is the one struct with
 * `deny_unknown_fields`: an unknown key there is a decoding error (`invalid_json`), not an
 * unknown field.
 * @module
 */

import * as z from "../../zod";
import { f64, option, skipIfNone, u32 } from "../scalars";

/** llm_api `GenerationSupport`, catalog spelling. */
export const GenerationSupportSchema = z.deferred(() =>
  z.object({
    temperature: option(z.boolean()),
    maxTokens: option(z.boolean()),
    thinking: skipIfNone(z.boolean()),
    reasoningEfforts: option(z.array(z.string())),
    reasoningEffortDefault: skipIfNone(z.string()),
    temperatureWithReasoning: option(z.boolean()),
    temperatureMax: option(f64),
    maxOutputTokens: option(u32),
    fastMode: skipIfNone(z.boolean()),
  }),
);

/** llm_api `ModelCapabilities`; `input` defaults to `[]` when missing. */
export const ModelCapabilitiesSchema = z.deferred(() =>
  z.object({
    input: z._default(z.array(z.string()), []),
    tool_calling: z.boolean(),
    structured_output: z.boolean(),
  }),
);

/** `LlmModelSnapshot` (`deny_unknown_fields`). */
export const LlmModelSnapshotSchema = z.deferred(() =>
  z.strictObject({
    capabilities: ModelCapabilitiesSchema,
    generation_support: GenerationSupportSchema,
  }),
);

/** `LlmRoute`: one concrete route; generation fields are desired preferences. */
export const LlmRouteSchema = z.deferred(() =>
  z.object({
    backend: z.string(),
    profile: z.string(),
    model: z.string(),
    provider_preferences: z.array(z.string()),
    temperature: option(f64),
    context_window_tokens: u32,
    cache_control: option(z.boolean()),
    reasoning_effort: option(z.string()),
    thinking: skipIfNone(z.boolean()),
    fast_mode: skipIfNone(z.boolean()),
    model_snapshot: LlmModelSnapshotSchema,
  }),
);

/** `LlmRouteBinding`: a (use case, model mode) selector and its route. */
export const LlmRouteBindingSchema = z.deferred(() =>
  z.object({
    use_case: z.string(),
    model_mode: z.string(),
    revision: option(z.string()),
    route: LlmRouteSchema,
  }),
);

/** `LlmExecutionPlan`. */
export const LlmExecutionPlanSchema = z.deferred(() =>
  z.object({
    routes: z.array(LlmRouteBindingSchema),
  }),
);

export type GenerationSupport = z.output<typeof GenerationSupportSchema>;
export type ModelCapabilities = z.output<typeof ModelCapabilitiesSchema>;
export type LlmModelSnapshot = z.output<typeof LlmModelSnapshotSchema>;
export type LlmRoute = z.output<typeof LlmRouteSchema>;
export type LlmRouteBinding = z.output<typeof LlmRouteBindingSchema>;
export type LlmExecutionPlan = z.output<typeof LlmExecutionPlanSchema>;
