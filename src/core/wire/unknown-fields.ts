/**
 * Finding the first field outside the contract, in the seed's two passes.
 *
 * Pass 1 (`serde_ignored`) sees only the structs serde deserializes straight from the input: the
 * envelope, metadata, the payload map, and the structs reachable from it through plain fields,
 * `Option`s, `Vec`s and the adjacently tagged `Payload` when `family` comes before `payload`
 * (otherwise serde buffers the content). It cannot see inside internally tagged enums, which
 * serde buffers. It reports the first unknown key in input order.
 *
 * Pass 2 (the canonical diff) walks the input against the re-encoded envelope and reports the
 * first input key the canonical form lacks. It catches everything pass 1 cannot: keys inside
 * tagged variants, keys on unit variants, and `null` written for a skip-if-none field. As
 * `serde_json::Map` is a `BTreeMap`, keys are visited in code-point order.
 *
 * The two passes print paths differently, as the seed does. Pass 1 prints `serde_ignored`'s
 * `Path` display: keys and array indexes joined by `.`, no root marker, and `?` for the value
 * inside an `Option` (e.g. `payload.payload.llm_plan.?.routes.0.route.x`). Pass 2 prints the
 * seed's own format: `$`, then `.key` per object key and `[i]` per array index
 * (e.g. `$.payload.payload.command.options.x`).
 * @module
 */

import type * as z from "../zod";
import { type Json, type JsonObject, compareCodePoints } from "../json";
import {
  ActorSchema,
  CheckpointReferenceSchema,
  ContextGenerationSchema,
  DispatchBindingSchema,
  InvocationContextSchema,
  MetadataSchema,
  ScopeSchema,
} from "./contracts/context";
import { DurableEventSchema } from "./contracts/agent";
import {
  CheckpointPurgeRequestSchema,
  CommandRequestSchema,
  EnvelopeSchema,
  EventAckSchema,
  EventMessageSchema,
  ExecutionFailureSchema,
  ObservationMessageSchema,
} from "./contracts/envelope";
import {
  GenerationSupportSchema,
  LlmExecutionPlanSchema,
  LlmRouteBindingSchema,
  LlmRouteSchema,
  ModelCapabilitiesSchema,
} from "./contracts/llm";
import { RustF64, type WireValue } from "./rust-json";

/** A struct serde reads directly: its known keys and the children it reads directly too. */
interface Visible {
  keys: ReadonlySet<string>;
  children: Record<string, Visible | "array-of-route-bindings" | "payload">;
  /** Children typed `Option<…>`: `serde_ignored` adds a `?` segment for the value inside. */
  options?: ReadonlySet<string>;
}

/** A struct's entry; its keys are read from the schema on first use (the schemas are built on first use too). */
function struct(schema: z.ZodMiniObject, children: Visible["children"] = {}, options: readonly string[] = []): Visible {
  let keys: ReadonlySet<string> | undefined;
  return {
    get keys() {
      return (keys ??= new Set(Object.keys(schema.shape)));
    },
    children,
    options: new Set(options),
  };
}

/** `serde_ignored`'s `Path` display: `parent.segment`, or the bare segment below the root. */
function join(path: string, segment: string | number): string {
  return path === "" ? String(segment) : `${path}.${segment}`;
}

const scope = struct(ScopeSchema);
const actor = struct(ActorSchema);
const context = struct(InvocationContextSchema, { scope, actor });
const checkpoint = struct(CheckpointReferenceSchema);
// `model_snapshot` denies unknown keys itself, so by now it holds none; its children do not.
const snapshot: Visible = {
  keys: new Set(["capabilities", "generation_support"]),
  children: { capabilities: struct(ModelCapabilitiesSchema), generation_support: struct(GenerationSupportSchema) },
};
const routeBinding = struct(LlmRouteBindingSchema, { route: struct(LlmRouteSchema, { model_snapshot: snapshot }) });

const FAMILY_CONTENT: Record<string, Visible | undefined> = {
  command: struct(
    CommandRequestSchema,
    {
      context_generation: struct(ContextGenerationSchema),
      llm_plan: struct(LlmExecutionPlanSchema, { routes: "array-of-route-bindings" }),
      base_checkpoint: checkpoint,
    },
    ["context_generation", "llm_plan", "base_checkpoint"],
  ),
  event: struct(EventMessageSchema, { event: struct(DurableEventSchema, { context }), checkpoint }),
  event_ack: struct(EventAckSchema, { checkpoint }),
  checkpoint_purge: struct(CheckpointPurgeRequestSchema, { scope }),
  observation: struct(ObservationMessageSchema, { context }),
  execution_failure: struct(ExecutionFailureSchema, { context }),
};

const envelope = struct(EnvelopeSchema, {
  metadata: struct(MetadataSchema, { dispatch: struct(DispatchBindingSchema) }),
  payload: "payload",
});

function plainObject(value: Json | undefined): JsonObject | null {
  return typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    Object.getPrototypeOf(value) === Object.prototype
    ? (value as JsonObject)
    : null;
}

function visit(value: Json | undefined, shape: Visible, path: string): string | null {
  const object = plainObject(value);
  if (object === null) return null;
  for (const key of Object.keys(object)) {
    const keyPath = join(path, key);
    if (!shape.keys.has(key)) return keyPath;
    const child = shape.children[key];
    const item = object[key];
    // A present `Option` value is reached through `Path::Some`, displayed as `?`.
    const childPath = item !== null && shape.options?.has(key) === true ? join(keyPath, "?") : keyPath;
    let found: string | null = null;
    if (child === "payload") found = visitPayload(item, childPath);
    else if (child === "array-of-route-bindings") {
      if (Array.isArray(item)) {
        for (let i = 0; i < item.length && found === null; i++)
          found = visit(item[i], routeBinding, join(childPath, i));
      }
    } else if (child !== undefined) found = visit(item, child, childPath);
    if (found !== null) return found;
  }
  return null;
}

/** The adjacently tagged `Payload` map at `path`. */
function visitPayload(value: Json | undefined, path: string): string | null {
  const map = plainObject(value);
  if (map === null) return null;
  const keys = Object.keys(map);
  for (const key of keys) {
    if (key !== "family" && key !== "payload") return join(path, key);
    if (key === "payload") {
      // serde reads the content straight through only when the tag came first.
      const family = map.family;
      const content =
        keys.indexOf("family") < keys.indexOf("payload") && typeof family === "string"
          ? FAMILY_CONTENT[family]
          : undefined;
      const found = content === undefined ? null : visit(map.payload, content, join(path, "payload"));
      if (found !== null) return found;
    }
  }
  return null;
}

/** Pass 1: the first unknown key `serde_ignored` would report, or null. */
export function firstIgnoredField(input: Json): string | null {
  const root = plainObject(input);
  if (root === null) return null;
  return visit(root, envelope, "");
}

function wireObject(value: WireValue): { [key: string]: WireValue } | null {
  if (typeof value !== "object" || value === null || Array.isArray(value) || value instanceof RustF64) return null;
  return Object.getPrototypeOf(value) === Object.prototype ? (value as { [key: string]: WireValue }) : null;
}

/** Pass 2: the first input key absent from the canonical form (`first_extra_field`), or null. */
export function firstExtraField(input: Json, canonical: WireValue, path = "$"): string | null {
  const inputObject = plainObject(input);
  const canonicalObject = wireObject(canonical);
  if (inputObject !== null && canonicalObject !== null) {
    for (const key of Object.keys(inputObject).sort(compareCodePoints)) {
      const childPath = `${path}.${key}`;
      if (!Object.hasOwn(canonicalObject, key)) return childPath;
      const found = firstExtraField(inputObject[key] as Json, canonicalObject[key] as WireValue, childPath);
      if (found !== null) return found;
    }
    return null;
  }
  if (Array.isArray(input) && Array.isArray(canonical)) {
    const n = Math.min(input.length, canonical.length);
    for (let i = 0; i < n; i++) {
      const found = firstExtraField(input[i] as Json, canonical[i] as WireValue, `${path}[${i}]`);
      if (found !== null) return found;
    }
  }
  return null;
}
