/**
 * `Envelope::validate()`: transport invariants checked after a successful decode, in the seed's
 * order; the first failing check wins. Also usable on an envelope built in code.
 * @module
 */

import type { CheckpointReference, ContextGeneration, InvocationContext, Scope } from "./contracts/context";
import type { CheckpointPurgeAck, CheckpointPurgeRequest, CommandRequest, Envelope } from "./contracts/envelope";
import type { LlmExecutionPlan } from "./contracts/llm";
import { type ProtocolError, invalidBinding, missingIdentifier, unsupportedVersion } from "./errors";
import { checkGenerationParameters, checkGenerationSupport } from "./llm-policy";
import { isBlank } from "./rust-text";

/** Protocol major version this codec speaks. */
export const CURRENT_VERSION = 1;

type Check = ProtocolError | null;

const SHA256_HEX = /^[0-9a-f]{64}$/;

function checkScope(scope: Scope): Check {
  if (isBlank(scope.scope_id)) return missingIdentifier("scope_id");
  if (scope.tenant_id !== null && isBlank(scope.tenant_id)) return missingIdentifier("tenant_id");
  return null;
}

function checkContext(context: InvocationContext): Check {
  const scope = checkScope(context.scope);
  if (scope !== null) return scope;
  const required: [string, string][] = [
    ["user_id", context.actor.user_id],
    ["thread_id", context.thread_id],
    ["run_id", context.run_id],
    ["operation_id", context.operation_id],
  ];
  for (const [name, value] of required) if (isBlank(value)) return missingIdentifier(name);
  if (context.actor.client_id !== null && isBlank(context.actor.client_id)) return missingIdentifier("client_id");
  return null;
}

function checkCheckpoint(reference: CheckpointReference): Check {
  if (isBlank(reference.object_key)) return missingIdentifier("checkpoint_object_key");
  if (reference.format_version === 0 || !SHA256_HEX.test(reference.sha256))
    return invalidBinding("checkpoint reference is invalid");
  return null;
}

function contextOf(envelope: Envelope): InvocationContext | null {
  const payload = envelope.payload;
  switch (payload.family) {
    case "command":
      return payload.payload.command.context;
    case "event":
      return payload.payload.event.context;
    case "observation":
    case "execution_failure":
    case "app_facade_request":
    case "command_response":
      return payload.payload.context;
    case "event_ack":
    case "checkpoint_purge":
    case "checkpoint_purge_ack":
    case "app_facade_response":
      return null;
  }
}

function checkPlan(plan: LlmExecutionPlan): Check {
  if (plan.routes.length === 0) return invalidBinding("LLM plan must contain at least one route");
  const selectors = new Set<string>();
  for (const binding of plan.routes) {
    const route = binding.route;
    const support = checkGenerationSupport(route.model_snapshot.generation_support);
    if (support !== null) return invalidBinding(support);
    const parameters = checkGenerationParameters({
      temperature: route.temperature,
      reasoning_effort: route.reasoning_effort,
      thinking: route.thinking,
      fast_mode: route.fast_mode,
    });
    if (parameters !== null) return invalidBinding(parameters);
    if ([binding.use_case, binding.model_mode, route.backend, route.profile, route.model].some(isBlank)) {
      return invalidBinding("LLM use case, model mode, backend, profile, and model are required");
    }
    // JSON.stringify keeps the pair unambiguous whatever characters the selectors hold.
    const selector = JSON.stringify([binding.use_case, binding.model_mode]);
    if (selectors.has(selector)) return invalidBinding("LLM plan contains a duplicate selector");
    selectors.add(selector);
    if (
      (binding.revision !== null && isBlank(binding.revision)) ||
      route.provider_preferences.some(isBlank) ||
      (route.reasoning_effort !== null && isBlank(route.reasoning_effort)) ||
      (route.temperature !== null && !Number.isFinite(route.temperature)) ||
      route.context_window_tokens <= 20_000
    ) {
      return invalidBinding("LLM route contains invalid optional settings");
    }
  }
  return null;
}

function checkCommandBinding(request: CommandRequest): Check {
  const command = request.command;
  const generation = request.context_generation;
  if (command.type === "cancel") {
    if (generation !== null) return invalidBinding("cancel must not carry a context generation");
  } else if (generation === null || !isComplete(generation)) {
    return invalidBinding("enqueue and submit_interaction require a context generation");
  }
  const plan = request.llm_plan;
  switch (command.type) {
    case "enqueue": {
      if (plan === null) return invalidBinding("enqueue requires a frozen LLM plan");
      const invalid = checkPlan(plan);
      if (invalid !== null) return invalid;
      const { use_case, model_mode } = command.options;
      const primary = plan.routes.find((item) => item.use_case === use_case && item.model_mode === model_mode);
      return primary === undefined ? invalidBinding("LLM plan does not contain the command's primary selector") : null;
    }
    case "submit_interaction":
      return plan === null ? invalidBinding("submit_interaction requires the run's frozen LLM plan") : checkPlan(plan);
    case "cancel":
      return plan === null ? null : invalidBinding("only commands that invoke the model may carry an LLM plan");
  }
}

/** `ContextGeneration::is_complete()`: every token non-blank. */
function isComplete(generation: ContextGeneration): boolean {
  const tokens = [
    generation.user_scope,
    generation.identity,
    generation.memory,
    generation.integration_guide,
    generation.installed_integrations,
    generation.scope_integrations,
  ];
  return !tokens.some(isBlank);
}

function checkPurgeRequest(request: CheckpointPurgeRequest): Check {
  if (isBlank(request.purge_id)) return missingIdentifier("purge_id");
  if (isBlank(request.conversation_key)) return missingIdentifier("conversation_key");
  if (isBlank(request.scope.scope_id)) return missingIdentifier("scope_id");
  if (isBlank(request.thread_id)) return missingIdentifier("thread_id");
  return null;
}

function checkPurgeAck(ack: CheckpointPurgeAck): Check {
  if (isBlank(ack.purge_id)) return missingIdentifier("purge_id");
  if (isBlank(ack.conversation_key)) return missingIdentifier("conversation_key");
  if (isBlank(ack.thread_id)) return missingIdentifier("thread_id");
  if (ack.status === "failed" && isBlank(ack.code)) return missingIdentifier("code");
  return null;
}

function checkRecovery(request: CommandRequest): Check {
  if (request.base_checkpoint !== null) {
    const invalid = checkCheckpoint(request.base_checkpoint);
    if (invalid !== null) return invalid;
  }
  if (request.command.type === "cancel" && (request.base_checkpoint !== null || request.abandoned_run_id !== null)) {
    return invalidBinding("cancel must target live execution without checkpoint recovery metadata");
  }
  if (request.abandoned_run_id !== null && request.base_checkpoint === null) {
    return invalidBinding("an abandoned run requires a base checkpoint");
  }
  return null;
}

/**
 * Checks the transport invariants of a decoded (or hand-built) envelope and returns the first
 * violation, or null when the envelope may be dispatched.
 */
export function validateEnvelope(envelope: Envelope): ProtocolError | null {
  const metadata = envelope.metadata;
  if (metadata.version !== CURRENT_VERSION) return unsupportedVersion(metadata.version);
  if (isBlank(metadata.message_id)) return missingIdentifier("message_id");
  if (isBlank(metadata.correlation_id)) return missingIdentifier("correlation_id");
  if (isBlank(metadata.dispatch.dispatch_id)) return missingIdentifier("dispatch_id");
  if (isBlank(metadata.dispatch.agent_session_id)) return missingIdentifier("agent_session_id");
  const context = contextOf(envelope);
  if (context !== null) {
    const invalid = checkContext(context);
    if (invalid !== null) return invalid;
  }
  const payload = envelope.payload;
  switch (payload.family) {
    case "command":
      return checkCommandBinding(payload.payload) ?? checkRecovery(payload.payload);
    case "checkpoint_purge":
      return checkPurgeRequest(payload.payload);
    case "checkpoint_purge_ack":
      return checkPurgeAck(payload.payload);
    case "event_ack":
    case "event":
      return checkCheckpoint(payload.payload.checkpoint);
    default:
      return null;
  }
}
