import { Validator } from "@cfworker/json-schema";
import { describe, expect, it } from "vitest";
import { readJson } from "../../../src/core/json";
import { decodeEnvelope, encodeEnvelope } from "../../../src/core/wire";
import { FIXTURE_NAMES, fixtureText, fixtureValue } from "./fixtures";

const schema = fixtureValue("envelope.v1.schema.json") as Record<string, unknown>;

describe("golden v1 fixtures", () => {
  it("are the twelve upstream envelopes", () => {
    expect(FIXTURE_NAMES).toEqual([
      "admission.v1.json",
      "app-facade-prepare.v1.json",
      "app-facade-prepared.v1.json",
      "app-facade-user-action.v1.json",
      "checkpoint-purge-ack.v1.json",
      "checkpoint-purge.v1.json",
      "completed-event.v1.json",
      "enqueue.v1.json",
      "event-ack.v1.json",
      "failed-event.v1.json",
      "interaction-required-event.v1.json",
      "observation.v1.json",
    ]);
  });

  it.each(FIXTURE_NAMES)("%s matches the normative JSON Schema", (name) => {
    const result = new Validator(schema, "2020-12", false).validate(fixtureValue(name));
    expect(result.errors).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it.each(FIXTURE_NAMES)("%s decodes and re-encodes to the same JSON value", (name) => {
    const decoded = decodeEnvelope(fixtureText(name));
    if (!decoded.ok) throw new Error(`${name}: ${decoded.error.message}`);
    const encoded = encodeEnvelope(decoded.envelope);
    const again = readJson(encoded, { integers: "bigint", maxBytes: 1 << 20 });
    expect(again).toEqual({ ok: true, value: fixtureValue(name) });
  });

  it.each(FIXTURE_NAMES)("%s decodes from bytes as from text", (name) => {
    const text = fixtureText(name);
    expect(decodeEnvelope(new TextEncoder().encode(text))).toEqual(decodeEnvelope(text));
  });

  it("writes the canonical text compactly in contract key order", () => {
    const decoded = decodeEnvelope(fixtureText("event-ack.v1.json"));
    if (!decoded.ok) throw new Error(decoded.error.message);
    expect(encodeEnvelope(decoded.envelope)).toBe(
      '{"metadata":{"version":1,"message_id":"message-ack-1","correlation_id":"correlation-event-1","causation_id":"message-event-1",' +
        '"sent_at_unix_ms":1700000000000,"dispatch":{"dispatch_id":"dispatch-1","agent_session_id":"agent-session-1"}},' +
        '"payload":{"family":"event_ack","payload":{"event_id":"event-1","checkpoint":{"object_key":"checkpoints/abc.json",' +
        '"sha256":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","format_version":1}}}}',
    );
  });

  it("decodes the enqueue fixture to the seed's expected values", () => {
    const decoded = decodeEnvelope(fixtureText("enqueue.v1.json"));
    if (!decoded.ok || decoded.envelope.payload.family !== "command")
      throw new Error("enqueue fixture must decode as a command");
    const request = decoded.envelope.payload.payload;
    expect(decoded.envelope.metadata).toEqual({
      version: 1,
      message_id: "message-1",
      correlation_id: "correlation-1",
      causation_id: null,
      sent_at_unix_ms: 1_700_000_000_000,
      dispatch: { dispatch_id: "dispatch-1", agent_session_id: "agent-session-1" },
    });
    expect(request.llm_plan?.routes.map((route) => route.use_case)).toEqual([
      "chat",
      "agent_info_merge",
      "automation_judge",
      "automation_diagnose",
      "app_guide",
      "workflow.action_operate",
      "workflow.automation_generate",
      "workflow.description_generate",
    ]);
    const route = request.llm_plan?.routes[0]?.route;
    expect(route?.temperature).toBe(0.5);
    expect(route?.thinking).toBe(undefined);
    expect(route?.model_snapshot).toEqual({
      capabilities: { input: ["image"], tool_calling: true, structured_output: true },
      generation_support: {
        temperature: true,
        maxTokens: true,
        thinking: true,
        reasoningEfforts: ["high"],
        temperatureWithReasoning: true,
        temperatureMax: null,
        maxOutputTokens: null,
      },
    });
    expect(request.base_checkpoint).toBe(null);
    expect(request.abandoned_run_id).toBe(null);
  });
});
