import { describe, expect, it } from "vitest";
import type { Json } from "../../../src/core/json";
import { type DecodeResult, decodeEnvelope } from "../../../src/core/wire";
import { at, fixtureValue, setAt, toText } from "./fixtures";

type Mutation = (value: Json) => void;

function decodeMutated(name: string, ...mutations: Mutation[]): DecodeResult {
  const value = fixtureValue(name);
  for (const mutate of mutations) mutate(value);
  return decodeEnvelope(toText(value));
}

const set =
  (path: (string | number)[], item: Json): Mutation =>
  (value) =>
    setAt(value, path, item);

const CMD = ["payload", "payload"];
const ENQ_CTX = [...CMD, "command", "context"];
const ROUTE0 = [...CMD, "llm_plan", "routes", 0, "route"];
const SUPPORT0 = [...ROUTE0, "model_snapshot", "generation_support"];

/** Turns the enqueue fixture into a cancel command with no bindings. */
const toCancel: Mutation = (value) => {
  const context = at(value, ...ENQ_CTX);
  setAt(value, [...CMD, "command"], { type: "cancel", context });
  setAt(value, [...CMD, "context_generation"], null);
  setAt(value, [...CMD, "llm_plan"], null);
};

/** Turns the enqueue fixture into a submit_interaction command (keeps the bindings). */
const toSubmit: Mutation = (value) => {
  const context = at(value, ...ENQ_CTX);
  setAt(value, [...CMD, "command"], {
    type: "submit_interaction",
    context,
    interaction: { batch_id: "batch-1", decisions: [{ action_id: "action-1", proceed: true }] },
  });
};

/** Turns the observation fixture into an execution_failure envelope. */
const toExecutionFailure: Mutation = (value) => {
  const context = at(value, "payload", "payload", "context");
  setAt(value, ["payload"], { family: "execution_failure", payload: { context, code: "INTERNAL", message: "lost" } });
};

const GOOD_CHECKPOINT = {
  object_key: "checkpoints/base.json",
  sha256: "0123456789abcdef".repeat(4),
  format_version: 3,
};

function refused(code: string, message: string): DecodeResult {
  return { ok: false, error: { code, path: null, message } } as DecodeResult;
}

const missing = (name: string) => refused("missing_identifier", `missing required identifier: ${name}`);
const binding = (reason: string) => refused("invalid_binding", `invalid command binding: ${reason}`);

describe("validate(): metadata rules", () => {
  it.each([
    ["version 2", [set(["metadata", "version"], 2)], refused("unsupported_version", "unsupported protocol version 2")],
    ["version 0", [set(["metadata", "version"], 0)], refused("unsupported_version", "unsupported protocol version 0")],
    [
      "version before every other check",
      [set(["metadata", "version"], 65535), set(["metadata", "message_id"], " ")],
      refused("unsupported_version", "unsupported protocol version 65535"),
    ],
    ["blank message_id", [set(["metadata", "message_id"], " \t")], missing("message_id")],
    ["blank correlation_id", [set(["metadata", "correlation_id"], "")], missing("correlation_id")],
    [
      "message_id before correlation_id",
      [set(["metadata", "message_id"], ""), set(["metadata", "correlation_id"], "")],
      missing("message_id"),
    ],
    ["blank dispatch_id", [set(["metadata", "dispatch", "dispatch_id"], "\n")], missing("dispatch_id")],
    [
      "blank agent_session_id",
      [set(["metadata", "dispatch", "agent_session_id"], "\u3000")],
      missing("agent_session_id"),
    ],
    ["U+0085 is Rust white space", [set(["metadata", "message_id"], "\u0085")], missing("message_id")],
  ])("%s", (_name, mutations, expected) => {
    expect(decodeMutated("event-ack.v1.json", ...mutations)).toEqual(expected);
  });

  it.each([
    ["causation_id is not checked", set(["metadata", "causation_id"], " ")],
    ["U+FEFF is not Rust white space", set(["metadata", "message_id"], "\uFEFF")],
  ])("%s", (_name, mutation) => {
    expect(decodeMutated("event-ack.v1.json", mutation).ok).toBe(true);
  });
});

describe("validate(): invocation context, for every family that carries one", () => {
  const carriers: [string, (string | number)[], Mutation[]][] = [
    ["enqueue", ENQ_CTX, []],
    ["enqueue.v1.json:cancel", ENQ_CTX, [toCancel]],
    ["enqueue.v1.json:submit", ENQ_CTX, [toSubmit]],
    ["completed-event.v1.json", ["payload", "payload", "event", "context"], []],
    ["observation.v1.json", ["payload", "payload", "context"], []],
    ["observation.v1.json:failure", ["payload", "payload", "context"], [toExecutionFailure]],
    ["app-facade-prepare.v1.json", ["payload", "payload", "context"], []],
    ["admission.v1.json", ["payload", "payload", "context"], []],
  ];
  const rules: [string, (ctx: (string | number)[]) => Mutation[], DecodeResult][] = [
    ["blank scope_id", (c) => [set([...c, "scope", "scope_id"], " ")], missing("scope_id")],
    ["blank tenant_id", (c) => [set([...c, "scope", "tenant_id"], "")], missing("tenant_id")],
    [
      "scope_id before tenant_id",
      (c) => [set([...c, "scope", "tenant_id"], ""), set([...c, "scope", "scope_id"], "")],
      missing("scope_id"),
    ],
    ["blank user_id", (c) => [set([...c, "actor", "user_id"], " ")], missing("user_id")],
    ["blank thread_id", (c) => [set([...c, "thread_id"], " ")], missing("thread_id")],
    ["blank run_id", (c) => [set([...c, "run_id"], " ")], missing("run_id")],
    ["blank operation_id", (c) => [set([...c, "operation_id"], " ")], missing("operation_id")],
    ["blank client_id", (c) => [set([...c, "actor", "client_id"], " ")], missing("client_id")],
    [
      "user_id before run_id",
      (c) => [set([...c, "run_id"], ""), set([...c, "actor", "user_id"], "")],
      missing("user_id"),
    ],
    [
      "operation_id before client_id",
      (c) => [set([...c, "actor", "client_id"], ""), set([...c, "operation_id"], "")],
      missing("operation_id"),
    ],
  ];
  for (const [carrier, ctx, setup] of carriers) {
    const file = carrier.includes(":")
      ? (carrier.split(":")[0] as string)
      : carrier.endsWith(".json")
        ? carrier
        : `${carrier}.v1.json`;
    it.each(rules)(`${carrier}: %s`, (_name, mutations, expected) => {
      expect(decodeMutated(file, ...setup, ...mutations(ctx))).toEqual(expected);
    });
    it(`${carrier}: null tenant/client, blank traceparent and deadline are accepted`, () => {
      const result = decodeMutated(
        file,
        ...setup,
        set([...ctx, "scope", "tenant_id"], null),
        set([...ctx, "actor", "client_id"], null),
        set([...ctx, "traceparent"], " "),
        set([...ctx, "deadline_unix_ms"], 0),
      );
      expect(result.ok).toBe(true);
    });
  }
});

describe("validate(): command binding", () => {
  it.each([
    [
      "enqueue without context generation",
      [set([...CMD, "context_generation"], null)],
      binding("enqueue and submit_interaction require a context generation"),
    ],
    [
      "enqueue with a blank token",
      [set([...CMD, "context_generation", "memory"], " ")],
      binding("enqueue and submit_interaction require a context generation"),
    ],
    [
      "submit without context generation",
      [toSubmit, set([...CMD, "context_generation"], null)],
      binding("enqueue and submit_interaction require a context generation"),
    ],
    [
      "cancel with a context generation",
      [
        toCancel,
        set([...CMD, "context_generation"], {
          user_scope: "a",
          identity: "b",
          memory: "c",
          integration_guide: "d",
          installed_integrations: "e",
          scope_integrations: "f",
        }),
      ],
      binding("cancel must not carry a context generation"),
    ],
    ["enqueue without a plan", [set([...CMD, "llm_plan"], null)], binding("enqueue requires a frozen LLM plan")],
    [
      "enqueue without its primary selector",
      [set([...CMD, "command", "options", "model_mode"], "fast")],
      binding("LLM plan does not contain the command's primary selector"),
    ],
    [
      "submit without a plan",
      [toSubmit, set([...CMD, "llm_plan"], null)],
      binding("submit_interaction requires the run's frozen LLM plan"),
    ],
    [
      "cancel with a plan",
      [toCancel, set([...CMD, "llm_plan"], { routes: [] })],
      binding("only commands that invoke the model may carry an LLM plan"),
    ],
    [
      "generation check before plan check",
      [set([...CMD, "context_generation"], null), set([...CMD, "llm_plan"], null)],
      binding("enqueue and submit_interaction require a context generation"),
    ],
  ])("%s", (_name, mutations, expected) => {
    expect(decodeMutated("enqueue.v1.json", ...mutations)).toEqual(expected);
  });

  it("accepts a submit_interaction whose plan lacks any primary selector check", () => {
    expect(
      decodeMutated("enqueue.v1.json", toSubmit, set([...CMD, "llm_plan", "routes", 0, "use_case"], "elsewhere")).ok,
    ).toBe(true);
  });

  it("accepts a bare cancel", () => {
    expect(decodeMutated("enqueue.v1.json", toCancel).ok).toBe(true);
  });
});

describe("validate(): LLM plan", () => {
  it.each([
    ["no routes", [set([...CMD, "llm_plan", "routes"], [])], binding("LLM plan must contain at least one route")],
    ["maxOutputTokens 0", [set([...SUPPORT0, "maxOutputTokens"], 0)], binding("invalid generation support limits")],
    [
      "negative temperatureMax",
      [set([...SUPPORT0, "temperatureMax"], -0.5)],
      binding("invalid generation support limits"),
    ],
    [
      "effort off the ladder",
      [set([...SUPPORT0, "reasoningEfforts"], ["high", "none"])],
      binding("reasoningEfforts must list reasoning intensities"),
    ],
    [
      "default not listed",
      [set([...SUPPORT0, "reasoningEffortDefault"], "low")],
      binding("reasoningEffortDefault must be listed in reasoningEfforts"),
    ],
    [
      "default without a list",
      [set([...SUPPORT0, "reasoningEfforts"], null), set([...SUPPORT0, "reasoningEffortDefault"], "high")],
      binding("reasoningEffortDefault must be listed in reasoningEfforts"),
    ],
    ["reasoning_effort none", [set([...ROUTE0, "reasoning_effort"], "none")], binding("invalid reasoning_effort")],
    ["reasoning_effort empty", [set([...ROUTE0, "reasoning_effort"], "")], binding("invalid reasoning_effort")],
    [
      "reasoning_effort upper case",
      [set([...ROUTE0, "reasoning_effort"], "HIGH")],
      binding("invalid reasoning_effort"),
    ],
    [
      "negative temperature",
      [set([...ROUTE0, "temperature"], -0.5)],
      binding("temperature must be finite and nonnegative"),
    ],
    [
      "support before parameters",
      [set([...SUPPORT0, "maxOutputTokens"], 0), set([...ROUTE0, "reasoning_effort"], "none")],
      binding("invalid generation support limits"),
    ],
    [
      "blank backend",
      [set([...ROUTE0, "backend"], " ")],
      binding("LLM use case, model mode, backend, profile, and model are required"),
    ],
    [
      "blank profile",
      [set([...ROUTE0, "profile"], "")],
      binding("LLM use case, model mode, backend, profile, and model are required"),
    ],
    [
      "blank model",
      [set([...ROUTE0, "model"], "")],
      binding("LLM use case, model mode, backend, profile, and model are required"),
    ],
    [
      "blank use case on a later route",
      [set([...CMD, "llm_plan", "routes", 3, "use_case"], " ")],
      binding("LLM use case, model mode, backend, profile, and model are required"),
    ],
    [
      "blank model mode",
      [set([...CMD, "llm_plan", "routes", 2, "model_mode"], "")],
      binding("LLM use case, model mode, backend, profile, and model are required"),
    ],
    [
      "duplicate selector",
      [set([...CMD, "llm_plan", "routes", 5, "use_case"], "chat")],
      binding("LLM plan contains a duplicate selector"),
    ],
    [
      "blank revision",
      [set([...CMD, "llm_plan", "routes", 0, "revision"], " ")],
      binding("LLM route contains invalid optional settings"),
    ],
    [
      "blank provider preference",
      [set([...ROUTE0, "provider_preferences"], ["OpenAI", " "])],
      binding("LLM route contains invalid optional settings"),
    ],
    [
      "context window 20000",
      [set([...ROUTE0, "context_window_tokens"], 20000)],
      binding("LLM route contains invalid optional settings"),
    ],
  ])("%s", (_name, mutations, expected) => {
    expect(decodeMutated("enqueue.v1.json", ...mutations)).toEqual(expected);
  });

  it.each([
    ["context window 20001", set([...ROUTE0, "context_window_tokens"], 20001)],
    [
      "selectors differing only in mode",
      set([...CMD, "llm_plan", "routes", 5], {
        ...(at(fixtureValue("enqueue.v1.json"), ...CMD, "llm_plan", "routes", 0) as object),
        model_mode: "fast",
      } as Json),
    ],
    ["an effort on the ladder", set([...ROUTE0, "reasoning_effort"], "ultra")],
    ["a listed default", set([...SUPPORT0, "reasoningEffortDefault"], "high")],
    ["zero temperature", set([...ROUTE0, "temperature"], 0)],
    [
      "capability inputs are not checked",
      set([...ROUTE0, "model_snapshot", "capabilities", "input"], ["vision", "text"]),
    ],
  ])("accepts %s", (_name, mutation) => {
    expect(decodeMutated("enqueue.v1.json", mutation).ok).toBe(true);
  });
});

describe("validate(): checkpoints and purges", () => {
  it.each([
    [
      "enqueue.v1.json",
      "invalid base checkpoint",
      [set([...CMD, "base_checkpoint"], { ...GOOD_CHECKPOINT, format_version: 0 })],
      binding("checkpoint reference is invalid"),
    ],
    [
      "enqueue.v1.json",
      "cancel with a base checkpoint",
      [toCancel, set([...CMD, "base_checkpoint"], GOOD_CHECKPOINT)],
      binding("cancel must target live execution without checkpoint recovery metadata"),
    ],
    [
      "enqueue.v1.json",
      "cancel with an abandoned run",
      [toCancel, set([...CMD, "abandoned_run_id"], "run-0")],
      binding("cancel must target live execution without checkpoint recovery metadata"),
    ],
    [
      "enqueue.v1.json",
      "abandoned run without base",
      [set([...CMD, "abandoned_run_id"], "run-abandoned")],
      binding("an abandoned run requires a base checkpoint"),
    ],
    [
      "event-ack.v1.json",
      "blank object key",
      [set(["payload", "payload", "checkpoint", "object_key"], " ")],
      missing("checkpoint_object_key"),
    ],
    [
      "event-ack.v1.json",
      "object key before sha",
      [
        set(["payload", "payload", "checkpoint", "object_key"], ""),
        set(["payload", "payload", "checkpoint", "sha256"], "x"),
      ],
      missing("checkpoint_object_key"),
    ],
    [
      "event-ack.v1.json",
      "upper-case sha",
      [set(["payload", "payload", "checkpoint", "sha256"], "A".repeat(64))],
      binding("checkpoint reference is invalid"),
    ],
    [
      "event-ack.v1.json",
      "short sha",
      [set(["payload", "payload", "checkpoint", "sha256"], "a".repeat(63))],
      binding("checkpoint reference is invalid"),
    ],
    [
      "event-ack.v1.json",
      "format version 0",
      [set(["payload", "payload", "checkpoint", "format_version"], 0)],
      binding("checkpoint reference is invalid"),
    ],
    [
      "completed-event.v1.json",
      "event checkpoint",
      [set(["payload", "payload", "checkpoint", "sha256"], "g".repeat(64))],
      binding("checkpoint reference is invalid"),
    ],
    ["checkpoint-purge.v1.json", "blank purge_id", [set(["payload", "payload", "purge_id"], " ")], missing("purge_id")],
    [
      "checkpoint-purge.v1.json",
      "blank conversation_key",
      [set(["payload", "payload", "conversation_key"], "")],
      missing("conversation_key"),
    ],
    [
      "checkpoint-purge.v1.json",
      "blank scope_id",
      [set(["payload", "payload", "scope", "scope_id"], "")],
      missing("scope_id"),
    ],
    [
      "checkpoint-purge.v1.json",
      "blank thread_id",
      [set(["payload", "payload", "thread_id"], "")],
      missing("thread_id"),
    ],
    [
      "checkpoint-purge-ack.v1.json",
      "ack: blank purge_id",
      [set(["payload", "payload", "purge_id"], "")],
      missing("purge_id"),
    ],
    [
      "checkpoint-purge-ack.v1.json",
      "ack: blank conversation_key",
      [set(["payload", "payload", "conversation_key"], "")],
      missing("conversation_key"),
    ],
    [
      "checkpoint-purge-ack.v1.json",
      "ack: blank thread_id",
      [set(["payload", "payload", "thread_id"], "")],
      missing("thread_id"),
    ],
    [
      "checkpoint-purge-ack.v1.json",
      "failed ack: blank code",
      [
        set(["payload", "payload"], {
          status: "failed",
          purge_id: "p",
          conversation_key: "c",
          thread_id: "t",
          code: " ",
          message: "",
        }),
      ],
      missing("code"),
    ],
  ])("%s: %s", (file, _name, mutations, expected) => {
    expect(decodeMutated(file, ...mutations)).toEqual(expected);
  });

  it.each([
    [
      "enqueue.v1.json",
      "abandoned run with a base",
      [set([...CMD, "abandoned_run_id"], ""), set([...CMD, "base_checkpoint"], GOOD_CHECKPOINT)],
    ],
    ["event-ack.v1.json", "blank event_id", [set(["payload", "payload", "event_id"], "")]],
    ["checkpoint-purge.v1.json", "blank tenant in a purge", [set(["payload", "payload", "scope", "tenant_id"], " ")]],
    [
      "checkpoint-purge-ack.v1.json",
      "failed ack with blank message",
      [
        set(["payload", "payload"], {
          status: "failed",
          purge_id: "p",
          conversation_key: "c",
          thread_id: "t",
          code: "E",
          message: "",
        }),
      ],
    ],
    [
      "app-facade-prepared.v1.json",
      "app facade response contents",
      [set(["payload", "payload", "action", "preview", "title"], " ")],
    ],
    ["completed-event.v1.json", "sequence 0", [set(["payload", "payload", "event", "sequence"], 0)]],
  ])("%s: accepts %s", (file, _name, mutations) => {
    expect(decodeMutated(file, ...mutations).ok).toBe(true);
  });
});
