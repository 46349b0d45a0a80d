import { describe, expect, it } from "vitest";
import type { Json } from "../../../src/core/json";
import {
  checkpointPurgeDeleted,
  clientPersonalSurface,
  decodeEnvelope,
  encodeChecked,
  encodeEnvelope,
  eventAck,
  facadePrepared,
  formatRustF64,
  formatSurface,
  metadata,
  parseSurface,
  preparedAction,
  replyMetadata,
} from "../../../src/core/wire";
import { fixtureText, fixtureValue, setAt, toText } from "./fixtures";

function codeOf(text: string): string | null {
  const result = decodeEnvelope(text);
  return result.ok ? null : result.error.code;
}

function mutated(name: string, path: (string | number)[], item: Json | undefined): string {
  const value = fixtureValue(name);
  setAt(value, path, item);
  return toText(value);
}

const ACK = "event-ack.v1.json";

describe("invalid_json: what serde refuses while deserializing", () => {
  it.each([
    ["syntax error", "{"],
    ["trailing garbage", `${fixtureText(ACK)} x`],
    ["a second document", `${fixtureText(ACK)}{}`],
    ["not an object", "[]"],
    ["a byte order mark", `\uFEFF${fixtureText(ACK)}`],
    ["a lone surrogate", fixtureText(ACK).replace('"event-1"', '"\\ud800"')],
    [
      "a duplicate field",
      fixtureText(ACK).replace('"event_id": "event-1",', '"event_id": "event-1", "event_id": "event-2",'),
    ],
    ["NaN", fixtureText(ACK).replace('"format_version": 1', '"format_version": NaN')],
    ["a missing required field", mutated(ACK, ["payload", "payload", "event_id"], undefined)],
    ["a missing payload", mutated(ACK, ["payload", "payload"], undefined)],
    ["an unknown family", mutated(ACK, ["payload", "family"], "event_nack")],
    ["a family of the wrong type", mutated(ACK, ["payload", "family"], 1)],
    ["null for a required string", mutated(ACK, ["metadata", "message_id"], null)],
    ["a u16 overflow", mutated(ACK, ["metadata", "version"], 65_536)],
    ["a negative u64", mutated(ACK, ["metadata", "sent_at_unix_ms"], -1)],
    ["a u64 overflow", fixtureText(ACK).replace("1700000000000", "18446744073709551616")],
    ["a float lexeme in a u64", fixtureText(ACK).replace("1700000000000", "1700000000000.0")],
    ["an exponent in a u32", fixtureText(ACK).replace('"format_version": 1', '"format_version": 1e0')],
    ["a fraction in a u32", fixtureText(ACK).replace('"format_version": 1', '"format_version": 1.5')],
    ["a u32 overflow", mutated(ACK, ["payload", "payload", "checkpoint", "format_version"], 4_294_967_296)],
    [
      "an unknown internal tag",
      mutated("completed-event.v1.json", ["payload", "payload", "event", "event", "type"], "finished"),
    ],
    [
      "a missing internal tag",
      mutated("completed-event.v1.json", ["payload", "payload", "event", "event", "type"], undefined),
    ],
    ["an unknown enum value", mutated("admission.v1.json", ["payload", "payload", "disposition"], "waiting")],
    [
      "a padded surface",
      mutated("admission.v1.json", ["payload", "payload", "context", "surface_id"], "cs1:cp:dXNlci0x="),
    ],
    [
      "a missing model snapshot",
      mutated("enqueue.v1.json", ["payload", "payload", "llm_plan", "routes", 0, "route", "model_snapshot"], undefined),
    ],
    [
      "null for a serde-default tone",
      mutated("app-facade-prepared.v1.json", ["payload", "payload", "action", "preview", "tone"], null),
    ],
    [
      "a missing opaque input",
      mutated("app-facade-prepare.v1.json", ["payload", "payload", "request", "input"], undefined),
    ],
    [
      "an integer too large even for f64",
      fixtureText("completed-event.v1.json").replace('"done"', `1${"0".repeat(400)}`),
    ],
  ])("%s", (_name, text) => {
    expect(codeOf(text)).toBe("invalid_json");
  });

  it("names a missing field the way serde does", () => {
    expect(decodeEnvelope(mutated(ACK, ["payload", "payload", "event_id"], undefined))).toEqual({
      ok: false,
      error: {
        code: "invalid_json",
        path: null,
        message: "invalid protocol JSON: missing field `event_id` at $.payload.payload",
      },
    });
  });

  it("accepts serde_json's nesting limit of 127 containers and refuses the 128th", () => {
    const nest = (depth: number) =>
      fixtureText("completed-event.v1.json").replace('"done"', `${"[".repeat(depth)}${"]".repeat(depth)}`);
    // The opaque result sits inside 6 containers already: root, payload, payload, event, event, result.
    expect(codeOf(nest(121))).toBe(null);
    expect(codeOf(nest(122))).toBe("invalid_json");
  });

  it("keeps opaque values whatever keys they hold", () => {
    expect(
      codeOf(
        mutated("app-facade-prepare.v1.json", ["payload", "payload", "request", "input"], {
          any: { deep: [null, { x: 1 }] },
        }),
      ),
    ).toBe(null);
  });
});

describe("exact integers and Rust floats", () => {
  it("keeps u64 values beyond 2^53 exact", () => {
    const text = fixtureText(ACK).replace("1700000000000", "18446744073709551615");
    const result = decodeEnvelope(text);
    if (!result.ok) throw new Error(result.error.message);
    expect(result.envelope.metadata.sent_at_unix_ms).toBe(18_446_744_073_709_551_615n);
    expect(encodeEnvelope(result.envelope)).toContain('"sent_at_unix_ms":18446744073709551615,');
  });

  it("writes f64 fields as Rust does, integral ones with .0", () => {
    const text = mutated("enqueue.v1.json", ["payload", "payload", "llm_plan", "routes", 0, "route", "temperature"], 1);
    const result = decodeEnvelope(text);
    if (!result.ok) throw new Error(result.error.message);
    expect(encodeEnvelope(result.envelope)).toContain('"temperature":1.0,"context_window_tokens":128000');
  });

  it.each([
    [0.5, "0.5"],
    [1, "1.0"],
    [-0, "-0.0"],
    [100, "100.0"],
    [1e15, "1000000000000000.0"],
    [1e16, "1e16"],
    [1e30, "1e30"],
    [1.5e-7, "1.5e-7"],
    [0.001234, "0.001234"],
    [0.00001, "0.00001"],
    [0.000001, "1e-6"],
    [123.456, "123.456"],
    [1.2345678901234568e20, "1.2345678901234568e20"],
    [Number.NaN, "null"],
  ])("formats %d as %s", (value, text) => {
    expect(formatRustF64(value)).toBe(text);
  });
});

describe("conversation surfaces", () => {
  it("formats the spec's example", () => {
    expect(clientPersonalSurface("user-1")).toBe("cs1:cp:dXNlci0x");
  });

  it.each([
    ["cs1:cp:dXNlci0x", { kind: "client_personal", userId: "user-1" }],
    ["cs1:cg:Zw", { kind: "client_group", groupId: "g" }],
    [
      "cs1:mp:slack:YQ:Yg",
      { kind: "messaging_personal", provider: "slack", account: "a", conversation: "b", lane: null },
    ],
    [
      "cs1:mg:matrix_2:YQ:Yg:Yw",
      { kind: "messaging_group", provider: "matrix_2", account: "a", conversation: "b", lane: "c" },
    ],
  ])("parses %s", (text, parts) => {
    expect(parseSurface(text)).toEqual(parts);
    expect(formatSurface(parts as Parameters<typeof formatSurface>[0])).toBe(text);
  });

  it.each([
    "cs1:cp:dXNlci0x=",
    "cs1:cp:Zx",
    "cs1:cp:",
    "cs1:cp:IA",
    "cs1:cp:IGE",
    "cs2:cp:dXNlci0x",
    "cs1:xx:dXNlci0x",
    "cs1:cp:dXNlci0x:YQ",
    "cs1:mp:Slack:YQ:Yg",
    "cs1:mp:1slack:YQ:Yg",
    "cs1:mp:slack:YQ",
    "cs1:mp:slack:YQ:Yg:Yw:ZA",
    "cs1:cp:dXNl+i0x",
    "cs1:cp:_w",
  ])("refuses %s", (text) => {
    expect(parseSurface(text)).toBe(null);
  });
});

describe("builders give the golden envelopes", () => {
  it("event_ack", () => {
    const meta = metadata({
      messageId: "message-ack-1",
      correlationId: "correlation-event-1",
      causationId: "message-event-1",
      sentAtUnixMs: 1_700_000_000_000,
      dispatch: { dispatch_id: "dispatch-1", agent_session_id: "agent-session-1" },
    });
    const built = eventAck(meta, "event-1", {
      object_key: "checkpoints/abc.json",
      sha256: "a".repeat(64),
      format_version: 1,
    });
    expect(JSON.parse(encodeEnvelope(built))).toEqual(JSON.parse(fixtureText(ACK)));
  });

  it("checkpoint_purge_ack answering the purge fixture", () => {
    const request = decodeEnvelope(fixtureText("checkpoint-purge.v1.json"));
    if (!request.ok || request.envelope.payload.family !== "checkpoint_purge")
      throw new Error("purge fixture must decode");
    const built = checkpointPurgeDeleted(
      replyMetadata(request.envelope, "purge-ack-1", 1_700_000_000_001),
      request.envelope.payload.payload,
      2,
    );
    expect(JSON.parse(encodeEnvelope(built))).toEqual(JSON.parse(fixtureText("checkpoint-purge-ack.v1.json")));
  });

  it("app_facade_response / prepared with a client task", () => {
    const meta = metadata({
      messageId: "message-user-action-1",
      correlationId: "correlation-tool-2",
      causationId: "message-prepare-2",
      sentAtUnixMs: 1_700_000_000_520,
      dispatch: { dispatch_id: "dispatch-1", agent_session_id: "agent-session-1" },
    });
    const action = preparedAction({
      actionId: "action-install-1",
      operationId: "run-1:step:0:tool:call-2",
      preview: {
        actionCode: "integration.install",
        title: "Integration required",
        message: "Install Matter, then continue.",
        details: [{ label: "Integrations", value: { type: "text_list", items: ["matter"] } }],
        proceedLabel: "I've installed it",
        rejectLabel: "Skip",
        clientTask: { type: "install_integrations", integrationIds: ["matter"] },
      },
      payload: { target: "/app/integration/install" },
      revision: 8,
      approval: "always",
      interactionKind: "user_action",
    });
    const checked = encodeChecked(facadePrepared(meta, action));
    if (!checked.ok) throw new Error(checked.error.message);
    expect(JSON.parse(checked.text)).toEqual(JSON.parse(fixtureText("app-facade-user-action.v1.json")));
  });

  it("encodeChecked refuses an invalid outgoing envelope as a value", () => {
    const meta = metadata({
      messageId: " ",
      correlationId: "c",
      sentAtUnixMs: 0,
      dispatch: { dispatch_id: "d", agent_session_id: "s" },
    });
    expect(encodeChecked(eventAck(meta, "e", { object_key: "k", sha256: "a".repeat(64), format_version: 1 }))).toEqual({
      ok: false,
      error: { code: "missing_identifier", path: null, message: "missing required identifier: message_id" },
    });
  });
});
