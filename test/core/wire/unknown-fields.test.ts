import { describe, expect, it } from "vitest";
import type { Json, JsonObject } from "../../../src/core/json";
import { type DecodeResult, decodeEnvelope, encodeEnvelope } from "../../../src/core/wire";
import { FIXTURE_NAMES, at, fixtureValue, setAt, toText } from "./fixtures";

/** Opaque `serde_json::Value` fields of each fixture: anything inside them is accepted. */
const OPAQUE: Record<string, string[]> = {
  "completed-event.v1.json": ["$.payload.payload.event.event.result"],
  "app-facade-prepare.v1.json": ["$.payload.payload.request.input"],
  "app-facade-prepared.v1.json": ["$.payload.payload.action.payload"],
  "app-facade-user-action.v1.json": ["$.payload.payload.action.payload"],
  "interaction-required-event.v1.json": ["$.payload.payload.event.event.actions[0].payload"],
};

function objectPaths(value: Json, path = "$"): [string, (string | number)[]][] {
  const out: [string, (string | number)[]][] = [];
  const walk = (node: Json, p: string, keys: (string | number)[]): void => {
    if (Array.isArray(node)) node.forEach((item, i) => walk(item, `${p}[${i}]`, [...keys, i]));
    else if (typeof node === "object" && node !== null && Object.getPrototypeOf(node) === Object.prototype) {
      out.push([p, keys]);
      for (const key of Object.keys(node)) walk((node as JsonObject)[key] as Json, `${p}.${key}`, [...keys, key]);
    }
  };
  walk(value, path, []);
  return out;
}

// Objects serde deserializes straight from the input (read from the seed's types: plain struct
// fields, `Option`s, `Vec`s and the adjacently tagged payload content), where `serde_ignored`
// reports an unknown key in its own path format. Everything else is found by the canonical diff.
const DIRECT_OBJECTS: Record<string, RegExp> = {
  any: /^\$(\.metadata(\.dispatch)?|\.payload)?$/,
  command:
    /^\$\.payload\.payload(\.(context_generation|base_checkpoint|llm_plan(\.routes\[\d+\](\.route(\.model_snapshot\.(capabilities|generation_support))?)?)?))?$/,
  event: /^\$\.payload\.payload(\.checkpoint|\.event(\.context(\.scope|\.actor)?)?)?$/,
  event_ack: /^\$\.payload\.payload(\.checkpoint)?$/,
  checkpoint_purge: /^\$\.payload\.payload(\.scope)?$/,
  observation: /^\$\.payload\.payload(\.context(\.scope|\.actor)?)?$/,
  execution_failure: /^\$\.payload\.payload(\.context(\.scope|\.actor)?)?$/,
};
// `Option` fields on that path: `serde_ignored` shows the value inside one as a `?` segment.
const OPTION_FIELDS = /\.payload\.payload\.(context_generation|base_checkpoint|llm_plan)(?=\.|$)/;

function fixtureFamily(name: string): string {
  return ((fixtureValue(name) as JsonObject).payload as JsonObject).family as string;
}

/** The path the seed reports for an unknown key at `path` (written in the `$` format). */
function expectedUnknownPath(family: string, path: string): string {
  const parent = path.slice(0, path.lastIndexOf("."));
  const direct = DIRECT_OBJECTS.any?.test(parent) === true || DIRECT_OBJECTS[family]?.test(parent) === true;
  if (!direct) return path;
  return path
    .replace(OPTION_FIELDS, (segment) => `${segment}.?`)
    .replace(/\[(\d+)\]/g, ".$1")
    .replace(/^\$\./, "");
}

function unknown(path: string): DecodeResult {
  return { ok: false, error: { code: "unknown_field", path, message: `unknown protocol field: ${path}` } };
}

function decodeWith(name: string, mutate: (value: Json) => void): DecodeResult {
  const value = fixtureValue(name);
  mutate(value);
  return decodeEnvelope(toText(value));
}

describe("an unknown key injected at every object of every fixture", () => {
  const cases = FIXTURE_NAMES.flatMap((name) =>
    objectPaths(fixtureValue(name)).map(([path, keys]) => [name, path, keys] as const),
  );

  it("covers every object", () => {
    // 161 objects in the twelve fixtures, counted independently with Python's json module.
    expect(cases.length).toBe(161);
  });

  it.each(cases)("%s at %s", (name, path, keys) => {
    const result = decodeWith(name, (value) => {
      const target = (keys.length === 0 ? value : at(value, ...keys)) as JsonObject;
      target.zz_unknown = true;
    });
    const opaque = (OPAQUE[name] ?? []).some(
      (root) => path === root || path.startsWith(`${root}.`) || path.startsWith(`${root}[`),
    );
    if (opaque) expect(result.ok).toBe(true);
    else if (path.endsWith(".model_snapshot")) {
      expect(result).toEqual({
        ok: false,
        error: {
          code: "invalid_json",
          path: null,
          message: `invalid protocol JSON: unknown field \`zz_unknown\` at ${path}`,
        },
      });
    } else expect(result).toEqual(unknown(expectedUnknownPath(fixtureFamily(name), `${path}.zz_unknown`)));
  });
});

describe("which unknown field is reported first", () => {
  const CMD = ["payload", "payload"];
  it("a key serde reads directly beats one inside a tagged enum (pass 1 before pass 2)", () => {
    const result = decodeWith("enqueue.v1.json", (value) => {
      (at(value, ...CMD, "command", "options") as JsonObject).b = 1;
      (at(value, ...CMD, "llm_plan", "routes", 2, "route") as JsonObject).a = 1;
    });
    expect(result).toEqual(unknown("payload.payload.llm_plan.?.routes.2.route.a"));
  });

  it("pass 1 reports in input order", () => {
    const result = decodeWith("enqueue.v1.json", (value) => {
      const root = value as JsonObject;
      (root.metadata as JsonObject).zz = 1;
      (at(value, "metadata", "dispatch") as JsonObject).aa = 1;
    });
    // `dispatch` precedes the injected `zz` in metadata's key order.
    expect(result).toEqual(unknown("metadata.dispatch.aa"));
  });

  it("content placed before its family tag is buffered, so pass 1 cannot see into it", () => {
    const result = decodeWith("enqueue.v1.json", (value) => {
      (at(value, ...CMD, "command", "options") as JsonObject).b = 1;
      (at(value, ...CMD, "llm_plan", "routes", 2, "route") as JsonObject).a = 1;
      const root = value as JsonObject;
      const payload = root.payload as JsonObject;
      root.payload = { payload: payload.payload as Json, family: "command" };
    });
    expect(result).toEqual(unknown("$.payload.payload.command.options.b"));
  });

  it("pass 2 visits keys in code-point order, not input order", () => {
    const result = decodeWith("enqueue.v1.json", (value) => {
      (at(value, ...CMD, "command", "options") as JsonObject).zeta = 1;
      (at(value, ...CMD, "command", "message") as JsonObject).zeta = 1;
      (at(value, ...CMD, "command", "options") as JsonObject).alpha = 1;
    });
    expect(result).toEqual(unknown("$.payload.payload.command.message.zeta"));
  });

  it("an unknown key in pass 1 beats an earlier null for a skip-if-none field", () => {
    const result = decodeWith("enqueue.v1.json", (value) => {
      (at(value, ...CMD, "llm_plan", "routes", 0, "route") as JsonObject).thinking = null;
      (at(value, ...CMD, "llm_plan", "routes", 1) as JsonObject).extra = "x";
    });
    expect(result).toEqual(unknown("payload.payload.llm_plan.?.routes.1.extra"));
  });

  it("a shape error beats any unknown field", () => {
    const result = decodeWith("enqueue.v1.json", (value) => {
      (value as JsonObject).extra = 1;
      setAt(value, ["metadata", "sent_at_unix_ms"], "soon");
    });
    expect(result.ok === false && result.error.code).toBe("invalid_json");
  });

  it("extra keys on unit variants are unknown fields", () => {
    expect(
      decodeWith("completed-event.v1.json", (value) =>
        setAt(value, [...CMD, "event", "event"], { type: "started", x: 1 }),
      ),
    ).toEqual(unknown("$.payload.payload.event.event.x"));
    expect(
      decodeWith("app-facade-prepared.v1.json", (value) => setAt(value, [...CMD], { type: "rejected", action: null })),
    ).toEqual(unknown("$.payload.payload.action"));
  });

  it("a unit variant without extras decodes", () => {
    expect(
      decodeWith("completed-event.v1.json", (value) => setAt(value, [...CMD, "event", "event"], { type: "started" }))
        .ok,
    ).toBe(true);
  });
});

describe("null written for a field left out when empty", () => {
  const ROUTE = ["payload", "payload", "llm_plan", "routes", 0, "route"];
  const SUPPORT = [...ROUTE, "model_snapshot", "generation_support"];
  const cases: [string, (string | number)[]][] = [
    ["enqueue.v1.json", [...ROUTE, "thinking"]],
    ["enqueue.v1.json", [...ROUTE, "fast_mode"]],
    ["enqueue.v1.json", [...SUPPORT, "thinking"]],
    ["enqueue.v1.json", [...SUPPORT, "reasoningEffortDefault"]],
    ["enqueue.v1.json", [...SUPPORT, "fastMode"]],
    ["enqueue.v1.json", ["payload", "payload", "command", "message", "continuation"]],
    ["app-facade-user-action.v1.json", ["payload", "payload", "action", "preview", "clientTask"]],
    ["app-facade-prepared.v1.json", ["payload", "payload", "action", "preview", "clientTask"]],
  ];
  it.each(cases)("%s %j", (name, keys) => {
    const path = `$${keys.map((k) => (typeof k === "number" ? `[${k}]` : `.${k}`)).join("")}`;
    expect(decodeWith(name, (value) => setAt(value, keys, null))).toEqual(unknown(path));
  });

  it.each(["continuation", "context_invalidation"])("facade result %s", (key) => {
    const result = decodeWith("app-facade-prepared.v1.json", (value) =>
      setAt(value, ["payload", "payload"], { type: "result", result: { value: 1, [key]: null } }),
    );
    expect(result).toEqual(unknown(`$.payload.payload.result.${key}`));
  });

  it.each(["url", "base64", "mimeType", "createdAt"])("image %s", (key) => {
    const result = decodeWith("enqueue.v1.json", (value) =>
      setAt(
        value,
        ["payload", "payload", "command", "message", "content"],
        [{ type: "image", image: { url: "https://x", [key]: null } }],
      ),
    );
    expect(result).toEqual(unknown(`$.payload.payload.command.message.content[0].image.${key}`));
  });

  it("accepts the same fields present with values and writes them back", () => {
    const value = fixtureValue("enqueue.v1.json");
    setAt(value, [...ROUTE, "thinking"], false);
    setAt(value, [...SUPPORT, "reasoningEffortDefault"], "high");
    setAt(value, ["payload", "payload", "command", "message", "continuation"], {
      format: "f",
      compatibility_key: "k",
      payload: [1, { a: null }],
    });
    const decoded = decodeEnvelope(toText(value));
    if (!decoded.ok) throw new Error(decoded.error.message);
    expect(JSON.parse(encodeEnvelope(decoded.envelope))).toEqual(JSON.parse(toText(value)));
  });

  it("missing Option keys decode as None and re-encode as null", () => {
    const value = fixtureValue("completed-event.v1.json");
    setAt(value, ["metadata", "causation_id"], undefined);
    setAt(value, ["payload", "payload", "event", "context", "traceparent"], undefined);
    setAt(value, ["payload", "payload", "event", "event", "usage", "credits"], undefined);
    const decoded = decodeEnvelope(toText(value));
    if (!decoded.ok) throw new Error(decoded.error.message);
    const expected = fixtureValue("completed-event.v1.json");
    setAt(expected, ["metadata", "causation_id"], null);
    expect(JSON.parse(encodeEnvelope(decoded.envelope))).toEqual(JSON.parse(toText(expected)));
  });

  it("serde defaults fill a missing tone, details, payload and capability input", () => {
    const value = fixtureValue("app-facade-prepared.v1.json");
    setAt(value, ["payload", "payload", "action", "preview", "tone"], undefined);
    setAt(value, ["payload", "payload", "action", "preview", "details"], undefined);
    setAt(value, ["payload", "payload", "action", "payload"], undefined);
    const decoded = decodeEnvelope(toText(value));
    if (
      !decoded.ok ||
      decoded.envelope.payload.family !== "app_facade_response" ||
      decoded.envelope.payload.payload.type !== "prepared"
    ) {
      throw new Error("prepared fixture must decode");
    }
    const action = decoded.envelope.payload.payload.action;
    expect([action.preview.tone, action.preview.details, action.payload]).toEqual(["normal", [], null]);
  });
});
