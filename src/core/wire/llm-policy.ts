/**
 * The llm_api rules the envelope's plan validation relies on: the reasoning-effort ladder,
 * `GenerationSupport::validate` and `GenerationParameters::validate`. Each returns the llm_api
 * message on failure (the envelope wraps it as an invalid binding) or null.
 * @module
 */

import type { GenerationSupport } from "./contracts/llm";

/** `REASONING_EFFORT_LADDER`, lowest first. `none` is not an intensity. */
export const REASONING_EFFORT_LADDER = ["minimal", "low", "medium", "high", "xhigh", "max", "ultra"] as const;

const LADDER: ReadonlySet<string> = new Set(REASONING_EFFORT_LADDER);

/** `GenerationSupport::validate()`. */
export function checkGenerationSupport(support: GenerationSupport): string | null {
  const max = support.temperatureMax;
  if ((max !== null && (!Number.isFinite(max) || max < 0)) || support.maxOutputTokens === 0) {
    return "invalid generation support limits";
  }
  const efforts = support.reasoningEfforts;
  if (efforts?.some((effort) => !LADDER.has(effort))) return "reasoningEfforts must list reasoning intensities";
  const fallback = support.reasoningEffortDefault;
  if (fallback !== undefined && !(efforts ?? []).includes(fallback)) {
    return "reasoningEffortDefault must be listed in reasoningEfforts";
  }
  return null;
}

/** The desired generation parameters of a route, as `GenerationParameters` holds them. */
export interface GenerationParameters {
  temperature: number | null;
  reasoning_effort: string | null;
  thinking: boolean | undefined;
  fast_mode: boolean | undefined;
}

/** `GenerationParameters::validate()`: `thinking` and `fast_mode` are not checked. */
export function checkGenerationParameters(parameters: GenerationParameters): string | null {
  if (parameters.reasoning_effort !== null && !LADDER.has(parameters.reasoning_effort))
    return "invalid reasoning_effort";
  const t = parameters.temperature;
  if (t !== null && (!Number.isFinite(t) || t < 0)) return "temperature must be finite and nonnegative";
  return null;
}
