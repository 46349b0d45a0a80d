import { Validator } from "@cfworker/json-schema";
import { describe, expect, it } from "vitest";
import admission from "../../../fixtures/execution/admission.v1.json?raw";
import facadePrepare from "../../../fixtures/execution/app-facade-prepare.v1.json?raw";
import facadePrepared from "../../../fixtures/execution/app-facade-prepared.v1.json?raw";
import facadeUserAction from "../../../fixtures/execution/app-facade-user-action.v1.json?raw";
import purgeAck from "../../../fixtures/execution/checkpoint-purge-ack.v1.json?raw";
import purge from "../../../fixtures/execution/checkpoint-purge.v1.json?raw";
import completed from "../../../fixtures/execution/completed-event.v1.json?raw";
import enqueue from "../../../fixtures/execution/enqueue.v1.json?raw";
import schemaText from "../../../fixtures/execution/envelope.v1.schema.json?raw";
import eventAck from "../../../fixtures/execution/event-ack.v1.json?raw";
import failed from "../../../fixtures/execution/failed-event.v1.json?raw";
import interaction from "../../../fixtures/execution/interaction-required-event.v1.json?raw";
import observation from "../../../fixtures/execution/observation.v1.json?raw";
import { type Json, readJson } from "../../../src/core/json";
import { decodeEnvelope, encodeEnvelope } from "../../../src/core/wire";

// The golden envelopes inside workerd, where `eval` and `new Function` are forbidden: the
// schema validator and zod (jitless there) must both work without them.
const FIXTURES: [string, string][] = [
  ["admission", admission],
  ["app-facade-prepare", facadePrepare],
  ["app-facade-prepared", facadePrepared],
  ["app-facade-user-action", facadeUserAction],
  ["checkpoint-purge-ack", purgeAck],
  ["checkpoint-purge", purge],
  ["completed-event", completed],
  ["enqueue", enqueue],
  ["event-ack", eventAck],
  ["failed-event", failed],
  ["interaction-required-event", interaction],
  ["observation", observation],
];

function read(text: string): Json {
  const result = readJson(text, { integers: "bigint", maxBytes: 1 << 20 });
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

const validator = new Validator(read(schemaText) as Record<string, unknown>, "2020-12", false);

describe("execution envelope v1 inside workerd", () => {
  it.each(FIXTURES)("%s matches the JSON Schema", (_name, text) => {
    expect(validator.validate(read(text)).errors).toEqual([]);
  });

  it.each(FIXTURES)("%s round-trips through the codec", (_name, text) => {
    const decoded = decodeEnvelope(text);
    if (!decoded.ok) throw new Error(decoded.error.message);
    expect(read(encodeEnvelope(decoded.envelope))).toEqual(read(text));
  });

  it("the schema refuses what it should", () => {
    const bad = read(eventAck) as { metadata: Record<string, Json> };
    bad.metadata.version = 2;
    expect(validator.validate(bad).valid).toBe(false);
  });

  it("the strict decoder refuses an unknown field", () => {
    const text = enqueue.replace('"debug": false', '"debug": false, "unexpected": true');
    expect(decodeEnvelope(text)).toEqual({
      ok: false,
      error: {
        code: "unknown_field",
        path: "$.payload.payload.command.options.unexpected",
        message: "unknown protocol field: $.payload.payload.command.options.unexpected",
      },
    });
  });
});
