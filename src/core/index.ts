/**
 * The pure core of toolgate: deterministic, no I/O, no clock, no Worker or Node APIs (it
 * type-checks against ES2023 alone plus `platform.d.ts`). Published as `toolgate/core`.
 *
 * - Strict JSON ({@link readJson}, {@link canonicalJson}, digests) is exported flat: every other
 *   layer reads and writes through it.
 * - Each subsystem is a namespace, so its names stay its own (`capability.ApprovalDecision` and
 *   `toolResult.ApprovalDecision`, `capability.validateResult` and `toolResult.validateResult`
 *   are different things, and a name added to one barrel cannot shadow another's):
 *   - `toolResult`: Tool Result v2, the dispatcher between a proposed tool call and the tool.
 *   - `adapters`: provider projections of result packages and parsers of native tool calls.
 *   - `capability`: the capability service's wire contracts and deterministic engine.
 *   - `wire`: execution envelope v1, its strict codec and builders.
 *   - `text`: text a person reads, with invisible, bidi and look-alike characters escaped visibly.
 * @module
 */
export * from "./json";
export * as toolResult from "./tool-result";
export * as adapters from "./adapters";
export * as capability from "./capability";
export * as wire from "./wire";
export * as audit from "./audit";
export * as toolSchema from "./tool-schema";
export * as policy from "./policy";
export * as text from "./text";
export { ok, err, type Result } from "./result";
