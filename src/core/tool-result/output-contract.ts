/**
 * Output-contract validation of raw handler results, before either projection exists:
 * registry metadata, exact fields, JSON domain, sensitive/control keys, size, depth, rules.
 * @module
 */
import { canonicalJson, checkJsonDomain, codePointLength, type Json } from "../json";
import { SENSITIVE_OR_CONTROL_KEYS } from "./constants";
import { pySortedListRepr } from "./python-repr";
import { hasRuleType, type OutputRule, type ToolSpec } from "./tool-spec";
import { isNonemptyString, isPlainObject } from "./text-rules";
import type { HandlerResult, ToolCall } from "./types";
import { RecentByIdentity } from "./recent";
import { isRfc3339UtcSecond } from "./utc-time";

// UTF-8 length without allocating the bytes: the text is well-formed (the domain check passed).
function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i += 1) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      bytes += 2;
      i += 1;
    } else if (unit >= 0x800) bytes += 2;
    else if (unit >= 0x80) bytes += 1;
  }
  return bytes;
}

/** Whether the UTF-8 encoding of `text` is longer than `max` bytes; counts only when its length cannot tell. */
function exceedsBytes(text: string, max: number): boolean {
  // A UTF-16 unit takes one to three bytes (a surrogate pair four for two units).
  if (3 * text.length <= max) return false;
  if (text.length > max) return true;
  return utf8Length(text) > max;
}

/** Nesting depth as the reference counts it: a scalar is 0, `{}` is 1. */
export function jsonDepth(value: unknown): number {
  let inner = 0;
  if (Array.isArray(value)) {
    for (const item of value) inner = Math.max(inner, jsonDepth(item));
    return 1 + inner;
  }
  if (isPlainObject(value)) {
    for (const key of Object.keys(value)) inner = Math.max(inner, jsonDepth(value[key]));
    return 1 + inner;
  }
  return 0;
}

function isForbiddenKey(key: string): boolean {
  const lower = key.toLowerCase();
  return SENSITIVE_OR_CONTROL_KEYS.has(lower.includes("-") ? lower.replaceAll("-", "_") : lower);
}

/** Whether any key (depth first) names a credential or a host control field; builds no paths. */
function hasForbiddenKey(value: unknown): boolean {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) if (hasForbiddenKey(value[i])) return true;
  } else if (isPlainObject(value)) {
    const keys = Object.keys(value);
    for (let i = 0; i < keys.length; i += 1) {
      const key = keys[i] as string;
      if (isForbiddenKey(key) || hasForbiddenKey(value[key])) return true;
    }
  }
  return false;
}

function locateForbiddenKey(value: unknown, path: string): string | null {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) {
      const found = locateForbiddenKey(value[i], `${path}[${i}]`);
      if (found !== null) return found;
    }
  } else if (isPlainObject(value)) {
    for (const key of Object.keys(value)) {
      if (isForbiddenKey(key)) return `${path}.${key}`;
      const found = locateForbiddenKey(value[key], `${path}.${key}`);
      if (found !== null) return found;
    }
  }
  return null;
}

/** Path of the first key (depth first) that names a credential or a host control field, or null. */
export function findForbiddenKey(value: unknown, path = "data"): string | null {
  // Nearly every output is clean: the paths are built only once a key is known to be there.
  return hasForbiddenKey(value) ? locateForbiddenKey(value, path) : null;
}

const HANDLER_FIELDS = new Set([
  "data",
  "producer_revision",
  "resource_revision",
  "observed_at",
  "downstream_request_id",
  "receipt_id",
]);

/** `true` when `raw` has the HandlerResult shape (the reference's `isinstance(raw, HandlerResult)`). */
export function isHandlerResult(raw: unknown): raw is HandlerResult {
  if (!isPlainObject(raw)) return false;
  for (const key in raw) if (Object.hasOwn(raw, key) && !HANDLER_FIELDS.has(key)) return false;
  const optionalText = (v: unknown): boolean => v === undefined || v === null || typeof v === "string";
  return (
    Object.hasOwn(raw, "data") &&
    Object.hasOwn(raw, "producer_revision") &&
    Object.hasOwn(raw, "resource_revision") &&
    Object.hasOwn(raw, "observed_at") &&
    optionalText(raw["downstream_request_id"]) &&
    optionalText(raw["receipt_id"])
  );
}

function checkRule(name: string, rule: OutputRule, value: Json, call: ToolCall, errors: string[]): void {
  if (!hasRuleType(value, rule.type)) {
    errors.push(`data.${name} typedoes not match`);
    return;
  }
  if (typeof value === "string") {
    const length = codePointLength(value);
    if (rule.minLength !== undefined && length < rule.minLength) errors.push(`data.${name} is too short`);
    if (rule.maxLength !== undefined && length > rule.maxLength) errors.push(`data.${name} is too long`);
    if (rule.enum !== undefined && !rule.enum.includes(value)) errors.push(`data.${name} is not in the enumeration`);
    if (rule.pattern !== undefined && !rule.pattern.test(value))
      errors.push(`data.${name} does not match the required format`);
  }
  if (rule.equalsArgument !== undefined) {
    const bound = Object.hasOwn(call.arguments, rule.equalsArgument) ? call.arguments[rule.equalsArgument] : undefined;
    // Output fields bound to arguments are strings in every registered tool, so === is Python's ==.
    if (value !== bound) errors.push(`data.${name} is not bound to input argument ${rule.equalsArgument}`);
  }
}

interface ValidOutput {
  readonly spec: ToolSpec;
  readonly call: ToolCall;
  readonly producerRevision: unknown;
  readonly resourceRevision: unknown;
  readonly observedAt: unknown;
}

// Outputs already found valid, keyed by their data object. A hit counts only once the data is
// frozen (packages deep-freeze their model result), so the same frozen data re-validated within
// one call — dispatch, then validate_result — is checked once; anything else is checked afresh.
const validOutputs = new RecentByIdentity<object, ValidOutput>(32);

function knownValid(spec: ToolSpec, call: ToolCall, raw: HandlerResult): boolean {
  const data = raw.data;
  if (typeof data !== "object" || data === null || !Object.isFrozen(data)) return false;
  const seen = validOutputs.get(data);
  return (
    seen !== undefined &&
    seen.spec === spec &&
    seen.call === call &&
    seen.producerRevision === raw.producer_revision &&
    seen.resourceRevision === raw.resource_revision &&
    seen.observedAt === raw.observed_at
  );
}

/** The reference's `validate_handler_result`: every problem, in its order. Empty means valid. */
export function validateHandlerResult(spec: ToolSpec, call: ToolCall, raw: unknown): string[] {
  return checkHandlerOutput(spec, call, raw).errors;
}

/** What {@link checkHandlerOutput} found: the problems, and the valid data's canonical text when it wrote one. */
export interface HandlerOutputCheck {
  readonly errors: string[];
  /** `canonicalJson(data)` of valid data (at most 30 levels deep, so it is also its text inside a model result). */
  readonly dataText: string | undefined;
}

const NOT_A_RESULT: readonly string[] = ["handler must return HandlerResult, not an arbitrary mapping"];

/**
 * {@link validateHandlerResult}, also handing over the data's canonical text it wrote for the
 * size check, so the package built right after from the same data does not write it again.
 */
export function checkHandlerOutput(spec: ToolSpec, call: ToolCall, raw: unknown): HandlerOutputCheck {
  if (!isHandlerResult(raw)) return { errors: [...NOT_A_RESULT], dataText: undefined };
  if (knownValid(spec, call, raw)) return { errors: [], dataText: undefined };
  const checked = checkHandlerResult(spec, call, raw);
  if (checked.errors.length === 0 && typeof raw.data === "object" && raw.data !== null) {
    validOutputs.set(raw.data, {
      spec,
      call,
      producerRevision: raw.producer_revision,
      resourceRevision: raw.resource_revision,
      observedAt: raw.observed_at,
    });
  }
  return checked;
}

function checkHandlerResult(spec: ToolSpec, call: ToolCall, raw: HandlerResult): HandlerOutputCheck {
  const errors: string[] = [];
  const refused = { errors, dataText: undefined };
  if (raw.producer_revision !== spec.producerRevision) errors.push("producer_revision andregistryis inconsistent");
  if (raw.resource_revision !== null && !isNonemptyString(raw.resource_revision)) {
    errors.push("resource_revision must be null or non-emptystring");
  }
  if (!isRfc3339UtcSecond(raw.observed_at))
    errors.push("observed_at must be a UTC RFC 3339 timestamp with second precision");
  const data = raw.data;
  if (!isPlainObject(data)) {
    errors.push("handler data must be an object");
    return refused;
  }
  const expected = Object.keys(spec.output);
  const actual = Object.keys(data);
  if (spec.outputSchema !== undefined) {
    // A data-defined tool: its schema decides the fields; `output` rules bind some to arguments.
    if (checkJsonDomain(data) !== null || !spec.outputSchema.validate(data)) {
      errors.push("output does not match the tool's output schema");
      return refused;
    }
  } else if (actual.length !== expected.length || !expected.every((key) => Object.hasOwn(data, key))) {
    const missing = expected.filter((key) => !Object.hasOwn(data, key));
    const extra = actual.filter((key) => !Object.hasOwn(spec.output, key));
    errors.push(`output fields do not match: missing=${pySortedListRepr(missing)}, extra=${pySortedListRepr(extra)}`);
    return refused;
  }
  // Check the bounded JSON domain before the recursive scans, so hostile nesting cannot overflow them.
  const domain = checkJsonDomain(data);
  if (domain !== null) {
    errors.push(`output is outside the supported JSON domain: ${domain.replace(/^\$/, "data")}`);
    return refused;
  }
  const forbidden = findForbiddenKey(data);
  if (forbidden !== null) errors.push(`output contains sensitive or control fields: ${forbidden}`);
  const text = canonicalJson(data);
  if (exceedsBytes(text, spec.maxOutputBytes)) errors.push(`output exceeds ${spec.maxOutputBytes} bytes`);
  const depth = jsonDepth(data);
  if (depth > spec.maxOutputDepth) errors.push(`output depth exceeds ${spec.maxOutputDepth}`);
  for (const name of expected) {
    if (spec.outputSchema !== undefined && !Object.hasOwn(data, name)) continue;
    checkRule(name, spec.output[name] as OutputRule, data[name] as Json, call, errors);
  }
  // Inside a model result the data sits one level down: hand the text over only where that cannot matter.
  return { errors, dataText: errors.length === 0 && depth <= 30 ? text : undefined };
}
