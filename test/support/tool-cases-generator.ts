/**
 * Seeded random generator of valid `tool-cases-v2` fixtures for differential testing of the
 * Tool Result v2 engine against the reference implementation.
 *
 * Every generated fixture is meant to be accepted by the reference (exit status 0 or 1, never 2):
 * the generator carries a small model of the reference dispatcher so that it only emits steps the
 * reference runs without raising, and so that most `expected` blocks are right. A few `expected`
 * blocks are wrong on purpose, so exit status 1 happens too.
 *
 * The generator aims at the places where a JavaScript port tends to differ from Python: number
 * lexemes (int vs float, float layout), key order by code point, Python `str.strip()` whitespace,
 * code-point lengths, `__proto__`-like keys and identifiers, provider profiles, replays,
 * conflicts, unknown outcomes and their reconciliation, approvals and time boundaries.
 *
 * Pure module: no I/O, no clock, no Math.random.
 */

// ---------------------------------------------------------------------------------------------
// Random numbers

/** A small deterministic PRNG (sfc32) seeded from a string. */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: string) {
    // xmur3 string hash to seed sfc32
    let h = 1779033703 ^ seed.length;
    for (let i = 0; i < seed.length; i++) {
      h = Math.imul(h ^ seed.charCodeAt(i), 3432918353);
      h = (h << 13) | (h >>> 19);
    }
    const next = (): number => {
      h = Math.imul(h ^ (h >>> 16), 2246822507);
      h = Math.imul(h ^ (h >>> 13), 3266489909);
      h ^= h >>> 16;
      return h >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
    for (let i = 0; i < 15; i++) this.u32();
  }

  u32(): number {
    this.a >>>= 0;
    this.b >>>= 0;
    this.c >>>= 0;
    this.d >>>= 0;
    let t = (this.a + this.b) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.d = (this.d + 1) | 0;
    t = (t + this.d) | 0;
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform float in [0, 1). */
  next(): number {
    return this.u32() / 4294967296;
  }

  /** Integer in [lo, hi] (inclusive). */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error("pick from an empty list");
    return items[this.int(0, items.length - 1)] as T;
  }

  /** Picks by weight: entries are [weight, value]. */
  weighted<T>(entries: ReadonlyArray<readonly [number, T]>): T {
    let total = 0;
    for (const [w] of entries) total += w;
    let x = this.next() * total;
    for (const [w, v] of entries) {
      x -= w;
      if (x < 0) return v;
    }
    return (entries[entries.length - 1] as readonly [number, T])[1];
  }

  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.int(0, i);
      const tmp = items[i] as T;
      items[i] = items[j] as T;
      items[j] = tmp;
    }
    return items;
  }
}

// ---------------------------------------------------------------------------------------------
// Generated JSON values: numbers keep their lexeme, objects keep an explicit entry order.

/** A number with the exact lexeme written to the fixture. */
export class Num {
  readonly kind: "int" | "float";
  readonly value: number;
  constructor(readonly lexeme: string) {
    this.kind = /[.eE]/.test(lexeme) ? "float" : "int";
    this.value = Number(lexeme);
  }
}

/** An object as an ordered list of entries (so `__proto__` is an ordinary key). */
export class Obj {
  constructor(readonly entries: Array<[string, Gv]>) {}
  get(key: string): Gv | undefined {
    for (const [k, v] of this.entries) if (k === key) return v;
    return undefined;
  }
  keys(): string[] {
    return this.entries.map(([k]) => k);
  }
}

export type Gv = null | boolean | string | Num | Obj | Gv[];

/** A value-identity key: equal keys iff the reference's canonical JSON would be equal. */
export function canonKey(v: Gv): string {
  if (v === null) return "n";
  if (v === true) return "t";
  if (v === false) return "f";
  if (typeof v === "string") return JSON.stringify(v);
  if (v instanceof Num) {
    if (v.kind === "int") return `i${String(v.value)}`;
    return `f${Object.is(v.value, -0) ? "-0" : String(v.value)}`;
  }
  if (Array.isArray(v)) return `[${v.map(canonKey).join(",")}]`;
  const parts = v.entries.map(([k, x]) => `${JSON.stringify(k)}:${canonKey(x)}`);
  parts.sort();
  return `{${parts.join(",")}}`;
}

// ---------------------------------------------------------------------------------------------
// Python text rules, written independently of the product code.

const PY_WHITESPACE = new Set([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003,
  0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
]);

export function pyStripLength(s: string): number {
  const cps = Array.from(s, (c) => c.codePointAt(0) as number);
  let i = 0;
  let j = cps.length;
  while (i < j && PY_WHITESPACE.has(cps[i] as number)) i++;
  while (j > i && PY_WHITESPACE.has(cps[j - 1] as number)) j--;
  return j - i;
}

export function cpLength(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** Code-point order, as Python sorts `str`. */
export function cpCompare(a: string, b: string): number {
  const x = Array.from(a, (c) => c.codePointAt(0) as number);
  const y = Array.from(b, (c) => c.codePointAt(0) as number);
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) {
    if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number);
  }
  return x.length - y.length;
}

function isBoundedIdentifier(s: string): boolean {
  return pyStripLength(s) > 0 && cpLength(s) <= 255;
}

// ---------------------------------------------------------------------------------------------
// Trap material

/** Float lexemes of every layout Python's repr distinguishes. */
export const FLOAT_LEXEMES: readonly string[] = [
  "1.0",
  "-1.0",
  "0.0",
  "-0.0",
  "2.0",
  "100.0",
  "1E2",
  "1e+2",
  "3.0e0",
  "1e16",
  "1E16",
  "1e+16",
  "-1e16",
  "1e15",
  "9999999999999998.0",
  "1e17",
  "1e21",
  "1e22",
  "1e-05",
  "0.00001",
  "-1e-05",
  "1e-07",
  "1e-7",
  "0.0000001",
  "0.0001",
  "0.001",
  "5e-324",
  "4.9e-324",
  "2.5e-324",
  "1e-323",
  "2.2250738585072014e-308",
  "2.225073858507201e-308",
  "1.7976931348623157e308",
  "1.7976931348623157E+308",
  "-1.7976931348623157e308",
  "1551563132437320.25",
  "-101065508335255.125",
  "9007199254740992.0",
  "9007199254740993.0",
  "123456789012345678.0",
  "0.1",
  "0.30000000000000004",
  "1.5e300",
  "1e-400",
  "-1e-400",
  "0.1000000000000000055511151231257827",
  "2.5",
  "-2.5e-5",
  "12345678.90",
  "1e100",
  "7.0",
  "7e0",
  "1234567890123456.7",
  "0.5",
  "1e-4",
];

export const INT_LEXEMES: readonly string[] = [
  "0",
  "-0",
  "1",
  "-1",
  "7",
  "9007199254740991",
  "-9007199254740991",
  "1000000000000000",
  "4294967296",
  "2147483648",
  "-2147483649",
  "123",
  "10",
  "9",
];

/** Strings whose whitespace Python strips differently from JavaScript's trim(). */
export const WHITESPACE_STRINGS: readonly string[] = [
  "\x1c",
  "\x1d",
  "\x1e",
  "\x1f",
  "\x85",
  "\ufeff",
  "\u00a0",
  " ",
  "\t",
  "\u2028",
  "\u2029",
  "\u3000",
  "\u180e",
  "\u200b",
  "\x1c\x1d\x1e\x1f",
  " \x85 ",
  "\ufeff\ufeff",
  "\u00a0\ufeff",
  "\u2000\u200a",
  "\u202f\u205f",
  "\x0b\x0c",
  "\r\n",
];

/** Keys that sort differently by code point and by UTF-16 unit, or that JavaScript treats specially. */
export const TRAP_KEYS: readonly string[] = [
  "\uff61",
  "\u{1f600}",
  "\ue000",
  "\u{10000}",
  "\uffff",
  "\u{10ffff}",
  "\ufb33",
  "\ud7ff",
  "a\u{1f600}",
  "a\uff61",
  "10",
  "9",
  "01",
  "-1",
  "1.5",
  "",
  "\u0000",
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "A",
  "a",
  "\u00e9",
  "e\u0301",
  "\u2028",
  "\x7f",
  '"',
  "\\",
];

export const PROTO_STRINGS: readonly string[] = [
  "__proto__",
  "constructor",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "prototype",
  "__defineGetter__",
  "isPrototypeOf",
];

/** Single astral code points (two UTF-16 units each). */
const ASTRAL1 = ["\u{1f600}", "\u{10000}", "\u{1d4fe}", "\u{20000}", "\u{10ffff}"];
const ASTRAL = [...ASTRAL1, "\u{1f9d1}\u200d\u{1f4bb}"];
const PRIVATE_BMP = ["\ue000", "\uf8ff", "\uff61", "\ufb33", "\ufffd", "\uffff"];

function repeatCp(unit: string, n: number): string {
  let s = "";
  for (let i = 0; i < n; i++) s += unit;
  return s;
}

/** Python float repr digits are the shortest round-trip ones; any lexeme of a float works. */
function randomFloatLexeme(rng: Rng): string {
  const r = rng.next();
  let x: number;
  if (r < 0.3) {
    // random bits
    const buf = new DataView(new ArrayBuffer(8));
    buf.setUint32(0, rng.u32());
    buf.setUint32(4, rng.u32());
    x = buf.getFloat64(0);
    if (!Number.isFinite(x)) x = rng.next();
  } else if (r < 0.6) {
    x = (rng.next() - 0.5) * 10 ** rng.int(-12, 24);
  } else if (r < 0.8) {
    x = rng.int(-100000, 100000) / 2 ** rng.int(0, 12);
  } else {
    x = rng.int(1, 9) * 10 ** rng.int(-10, 25);
  }
  let s = String(x);
  if (!/[.eE]/.test(s)) s += ".0";
  if (rng.chance(0.15)) s = s.replace("e", "E");
  return s;
}

function randomSafeIntLexeme(rng: Rng): string {
  const r = rng.next();
  if (r < 0.5) return String(rng.int(-1000, 1000));
  if (r < 0.8) return String(rng.int(-2147483648, 2147483647));
  const hi = rng.int(0, 2097151);
  const lo = rng.u32();
  const v = hi * 4294967296 + lo;
  return (rng.chance(0.5) ? "-" : "") + String(v);
}

export function trapNumber(rng: Rng): Num {
  const r = rng.next();
  if (r < 0.5) return new Num(rng.pick(FLOAT_LEXEMES));
  if (r < 0.7) return new Num(randomFloatLexeme(rng));
  if (r < 0.85) return new Num(rng.pick(INT_LEXEMES));
  return new Num(randomSafeIntLexeme(rng));
}

export function trapString(rng: Rng): string {
  const r = rng.next();
  if (r < 0.2) return rng.pick(WHITESPACE_STRINGS);
  if (r < 0.3) return rng.pick(WHITESPACE_STRINGS) + "x" + rng.pick(WHITESPACE_STRINGS);
  if (r < 0.4) return repeatCp(rng.pick(ASTRAL), rng.int(1, 70));
  if (r < 0.5) return rng.pick(PRIVATE_BMP) + rng.pick(ASTRAL);
  if (r < 0.6) return rng.pick(PROTO_STRINGS);
  if (r < 0.7) return 'ctl\u0000\u0001\u001f\x7f\u2028\u2029"\\/';
  if (r < 0.8) return rng.pick(TRAP_KEYS);
  if (r < 0.9) return "ORDER-" + rng.int(0, 12);
  return `text-${rng.int(0, 99999)}`;
}

/** A random JSON value full of traps, at most `depth` more container levels. */
export function trapValue(rng: Rng, depth: number): Gv {
  const r = rng.next();
  if (depth <= 0 || r < 0.55) {
    const s = rng.next();
    if (s < 0.5) return trapNumber(rng);
    if (s < 0.85) return trapString(rng);
    if (s < 0.92) return rng.chance(0.5);
    return null;
  }
  if (r < 0.75) {
    const n = rng.chance(0.1) ? 0 : rng.int(1, 4);
    const items: Gv[] = [];
    for (let i = 0; i < n; i++) items.push(trapValue(rng, depth - 1));
    return items;
  }
  return trapObject(rng, depth - 1, rng.chance(0.1) ? 0 : rng.int(1, 5));
}

export function trapObject(rng: Rng, depth: number, size: number): Obj {
  const keys = new Set<string>();
  const entries: Array<[string, Gv]> = [];
  for (let i = 0; i < size * 3 && entries.length < size; i++) {
    const k = rng.chance(0.7) ? rng.pick(TRAP_KEYS) : trapString(rng);
    if (keys.has(k)) continue;
    keys.add(k);
    entries.push([k, trapValue(rng, depth)]);
  }
  return new Obj(entries);
}

/** Nested arrays/objects exactly `levels` containers deep (1 = a flat container). */
function deepValue(rng: Rng, levels: number): Gv {
  let v: Gv = rng.chance(0.5) ? trapNumber(rng) : rng.chance(0.5) ? [] : new Obj([]);
  if (!Array.isArray(v) && !(v instanceof Obj)) levels -= 0;
  else levels -= 1;
  for (let i = 0; i < levels; i++) {
    v = rng.chance(0.5) ? [v] : new Obj([[rng.pick(TRAP_KEYS), v]]);
  }
  return v;
}

// ---------------------------------------------------------------------------------------------
// The reference's fixed tables (demo orders, providers, registry shape, error catalog).

export const PROVIDERS = [
  { provider: "openai", api_family: "responses", adapter_revision: "openai-responses-v1" },
  { provider: "anthropic", api_family: "messages", adapter_revision: "anthropic-messages-v1" },
  { provider: "google", api_family: "interactions", adapter_revision: "gemini-interactions-v1" },
] as const;
type Provider = (typeof PROVIDERS)[number];

const ORDERS = new Map<string, { tenant: string; owner: string }>([
  ["ORDER-7", { tenant: "tenant-a", owner: "user-1" }],
  ["ORDER-8", { tenant: "tenant-a", owner: "user-2" }],
  ["ORDER-9", { tenant: "tenant-b", owner: "user-1" }],
]);
const REASONS = ["duplicate", "damaged", "other"];

const TOOLS = new Map<string, { risk: "read" | "write"; args: string[] }>([
  ["get_order", { risk: "read", args: ["order_ref"] }],
  ["create_refund_draft", { risk: "write", args: ["order_ref", "reason"] }],
]);

const CATALOG: Record<string, { status: string; outcome: string; recovery: string }> = {
  UNKNOWN_TOOL: { status: "failed", outcome: "not_started", recovery: "correct_input" },
  INVALID_ARGUMENTS: { status: "failed", outcome: "not_started", recovery: "correct_input" },
  OUTPUT_CONTRACT_VIOLATION: { status: "unknown", outcome: "unknown", recovery: "human_review" },
  NOT_FOUND: { status: "failed", outcome: "not_started", recovery: "none" },
  BUSINESS_RULE_VIOLATION: { status: "failed", outcome: "not_started", recovery: "human_review" },
  CALL_ID_CONFLICT: { status: "failed", outcome: "not_started", recovery: "human_review" },
  IDEMPOTENCY_KEY_REQUIRED: { status: "failed", outcome: "not_started", recovery: "correct_input" },
  IDEMPOTENCY_CONFLICT: { status: "failed", outcome: "not_started", recovery: "human_review" },
  APPROVAL_REQUIRED: { status: "failed", outcome: "not_started", recovery: "request_approval" },
  APPROVAL_INVALID: { status: "failed", outcome: "not_started", recovery: "request_approval" },
  TIMEOUT_BEFORE_EXECUTE: { status: "failed", outcome: "not_started", recovery: "retry_after" },
  OUTCOME_UNKNOWN: { status: "unknown", outcome: "unknown", recovery: "query_status" },
  STATUS_CONFLICT: { status: "unknown", outcome: "unknown", recovery: "human_review" },
  RATE_LIMIT: { status: "failed", outcome: "not_started", recovery: "retry_after" },
  TOOL_ERROR: { status: "failed", outcome: "not_started", recovery: "human_review" },
};
const ALL_CODES = ["OK", ...Object.keys(CATALOG)];

export const FAILURES = [
  "none",
  "timeout_before_execute",
  "timeout_after_commit",
  "timeout_after_commit_receipt_unavailable",
  "rate_limit",
  "tool_error",
] as const;
type Failure = (typeof FAILURES)[number];
export const APPROVALS = ["none", "valid", "expired", "mismatched"] as const;
type ApprovalMode = (typeof APPROVALS)[number];

export const MAX_NOW = 253_402_300_799 - 60;

// ---------------------------------------------------------------------------------------------
// A model of the reference dispatcher (only what decides codes, data, status refs, side effects).

interface Principal {
  tenant_id: string;
  subject_id: string;
  roles: string[];
}

interface Ctx {
  provider: string;
  api_family: string;
  adapter_revision: string;
  response_id: string;
  call_id: string;
  operation_id: string;
  idempotency_key: string | null;
}

interface Rec {
  req: string;
  provider: string;
  api: string;
  adapter: string;
  data: Array<[string, string]>;
  statusRef: string;
}

interface Unk {
  scope: string;
  req: string;
  provider: string;
  api: string;
  adapter: string;
  tool: string;
  statusRef: string;
}

export interface Outcome {
  code: string;
  delivery: "fresh" | "local_replay" | "receipt_reconciled";
  data: Array<[string, string]> | null;
  statusRef: string | null;
  sideEffects: number;
}

/** Thrown when the reference would raise (the generator must then choose another step). */
class WouldRaise extends Error {}

class ModelDispatcher {
  sideEffects = 0;
  records = new Map<string, Rec>();
  receipts = new Map<string, Rec>();
  uncertain = new Map<string, Unk>();
  statusRefs = new Map<string, Unk>();
  fingerprints = new Map<string, string>();

  constructor(readonly principal: Principal) {}

  private validArgs(tool: string, args: Gv): boolean {
    const spec = TOOLS.get(tool);
    if (spec === undefined || !(args instanceof Obj)) return false;
    const keys = args.keys();
    if (keys.length !== spec.args.length || !spec.args.every((k) => keys.includes(k))) return false;
    for (const name of spec.args) {
      const v = args.get(name);
      if (typeof v !== "string") return false;
      if (pyStripLength(v) < 1) return false;
      const max = name === "reason" ? 32 : 64;
      if (cpLength(v) > max) return false;
      if (name === "reason" && !REASONS.includes(v)) return false;
    }
    return true;
  }

  private req(tool: string, args: Gv): string {
    return JSON.stringify([this.principal.tenant_id, this.principal.subject_id, tool, canonKey(args)]);
  }

  private bindCall(tool: string, args: Gv, ctx: Ctx, purpose: string): boolean {
    const p = this.principal;
    const callKey = JSON.stringify([
      p.tenant_id,
      p.subject_id,
      ctx.provider,
      ctx.api_family,
      ctx.response_id,
      ctx.call_id,
    ]);
    const fp = JSON.stringify([
      ctx.provider,
      ctx.api_family,
      ctx.response_id,
      ctx.call_id,
      ctx.operation_id,
      ctx.idempotency_key,
      ctx.adapter_revision,
      purpose,
      this.req(tool, args),
    ]);
    const prior = this.fingerprints.get(callKey);
    if (prior !== undefined && prior !== fp) return false;
    this.fingerprints.set(callKey, fp);
    return true;
  }

  private authorized(orderRef: string): boolean {
    const order = ORDERS.get(orderRef);
    if (order === undefined || order.tenant !== this.principal.tenant_id) return false;
    return order.owner === this.principal.subject_id || this.principal.roles.includes("support_admin");
  }

  private scope(tool: string, key: string): string {
    return JSON.stringify([this.principal.tenant_id, this.principal.subject_id, tool, key]);
  }

  private err(code: string, statusRef: string | null = null): Outcome {
    return { code, delivery: "fresh", data: null, statusRef, sideEffects: this.sideEffects };
  }

  private ok(rec: Rec | null, data: Array<[string, string]>, delivery: Outcome["delivery"]): Outcome {
    return {
      code: "OK",
      delivery,
      data,
      statusRef: rec === null ? null : rec.statusRef,
      sideEffects: this.sideEffects,
    };
  }

  dispatch(tool: string, args: Gv, ctx: Ctx, approval: ApprovalMode, failure: Failure): Outcome {
    const spec = TOOLS.get(tool);
    if (spec === undefined) {
      if (approval !== "none") throw new WouldRaise("approval for an unknown tool");
      return this.err("UNKNOWN_TOOL");
    }
    if (!this.validArgs(tool, args)) return this.err("INVALID_ARGUMENTS");
    const req = this.req(tool, args);
    if (!this.bindCall(tool, args, ctx, "dispatch")) return this.err("CALL_ID_CONFLICT");
    const a = args as Obj;
    const orderRef = a.get("order_ref") as string;
    if (!this.authorized(orderRef)) return this.err("NOT_FOUND");
    let scope: string | null = null;
    if (spec.risk === "write") {
      if (ctx.idempotency_key === null) return this.err("IDEMPOTENCY_KEY_REQUIRED");
      scope = this.scope(tool, ctx.idempotency_key);
      const rec = this.records.get(scope);
      if (rec !== undefined) {
        if (
          rec.req !== req ||
          rec.provider !== ctx.provider ||
          rec.api !== ctx.api_family ||
          rec.adapter !== ctx.adapter_revision
        ) {
          return this.err("IDEMPOTENCY_CONFLICT");
        }
        return this.ok(rec, rec.data, "local_replay");
      }
      const unk = this.uncertain.get(scope);
      if (unk !== undefined) {
        if (
          unk.req !== req ||
          unk.provider !== ctx.provider ||
          unk.api !== ctx.api_family ||
          unk.adapter !== ctx.adapter_revision ||
          unk.tool !== tool
        ) {
          return this.err("IDEMPOTENCY_CONFLICT");
        }
        return this.err("OUTCOME_UNKNOWN", unk.statusRef);
      }
      // every demo order is "paid": the business rule always holds
      if (approval === "none") return this.err("APPROVAL_REQUIRED");
      if (approval !== "valid") return this.err("APPROVAL_INVALID");
      // the reference names the approval "approval-" + call_id and requires a bounded identifier
      if (cpLength(ctx.call_id) + 9 > 255) return this.err("APPROVAL_INVALID");
    }
    if (failure === "timeout_before_execute") return this.err("TIMEOUT_BEFORE_EXECUTE");
    if (failure === "rate_limit") return this.err("RATE_LIMIT");
    if (failure === "tool_error") return this.err("TOOL_ERROR");
    const afterCommit = failure === "timeout_after_commit" || failure === "timeout_after_commit_receipt_unavailable";
    if (afterCommit && spec.risk !== "write") throw new WouldRaise("timeout_after_commit on a read");
    if (spec.risk === "read")
      return this.ok(
        null,
        [
          ["order_ref", orderRef],
          ["status", "paid"],
        ],
        "fresh",
      );
    const s = scope as string;
    const statusRef = `${s}#${req}`;
    this.sideEffects += 1;
    const rec: Rec = {
      req,
      provider: ctx.provider,
      api: ctx.api_family,
      adapter: ctx.adapter_revision,
      data: [
        ["draft_id", `DRAFT-${this.sideEffects}`],
        ["order_ref", orderRef],
        ["reason", a.get("reason") as string],
      ],
      statusRef,
    };
    if (afterCommit) {
      const unk: Unk = {
        scope: s,
        req,
        provider: ctx.provider,
        api: ctx.api_family,
        adapter: ctx.adapter_revision,
        tool,
        statusRef,
      };
      this.uncertain.set(s, unk);
      this.statusRefs.set(statusRef, unk);
      if (failure === "timeout_after_commit") this.receipts.set(s, rec);
      return this.err("OUTCOME_UNKNOWN", statusRef);
    }
    this.receipts.set(s, rec);
    this.records.set(s, rec);
    return this.ok(rec, rec.data, "fresh");
  }

  queryStatus(tool: string, args: Gv, ctx: Ctx, statusRef: string): Outcome {
    if (!TOOLS.has(tool)) throw new WouldRaise("query_status of an unknown tool");
    if (!this.validArgs(tool, args)) return this.err("INVALID_ARGUMENTS");
    const req = this.req(tool, args);
    if (!this.bindCall(tool, args, ctx, "query_status")) return this.err("CALL_ID_CONFLICT");
    const orderRef = (args as Obj).get("order_ref") as string;
    if (!this.authorized(orderRef)) return this.err("NOT_FOUND");
    const unk = this.statusRefs.get(statusRef);
    if (unk === undefined) return this.err("NOT_FOUND");
    if (ctx.idempotency_key === null) return this.err("STATUS_CONFLICT", statusRef);
    const scope = this.scope(tool, ctx.idempotency_key);
    if (
      unk.scope !== scope ||
      unk.req !== req ||
      unk.provider !== ctx.provider ||
      unk.api !== ctx.api_family ||
      unk.adapter !== ctx.adapter_revision ||
      unk.tool !== tool
    ) {
      return this.err("STATUS_CONFLICT", statusRef);
    }
    const receipt = this.receipts.get(scope);
    if (receipt === undefined) return this.err("OUTCOME_UNKNOWN", statusRef);
    if (
      receipt.req !== req ||
      receipt.provider !== ctx.provider ||
      receipt.api !== ctx.api_family ||
      receipt.adapter !== ctx.adapter_revision ||
      receipt.statusRef !== statusRef
    ) {
      return this.err("STATUS_CONFLICT", statusRef);
    }
    this.records.set(scope, receipt);
    this.uncertain.delete(scope);
    return this.ok(receipt, receipt.data, "receipt_reconciled");
  }
}

// ---------------------------------------------------------------------------------------------
// Fixture shape

export interface StepDraft {
  step_id: string;
  action: "dispatch" | "query_status";
  name: string;
  args: Gv;
  ctx: Ctx;
  approval: ApprovalMode;
  failure: Failure;
  now: number;
  status_ref_from: string | null;
  expected: Obj;
  /** What the model predicts (for corpus statistics; not written to the fixture). */
  predicted: Outcome;
  wrongExpected: boolean;
}

export interface CaseDraft {
  id: string;
  principal: Principal;
  steps: StepDraft[];
}

export interface GeneratedFixture {
  text: string;
  cases: CaseDraft[];
  /** Expected exit status according to the generator's model (0 or 1). */
  predictedExit: 0 | 1;
  tags: string[];
}

// ---------------------------------------------------------------------------------------------
// Identifiers, principals, times

function weirdIdentifier(rng: Rng, base: string): string {
  const r = rng.next();
  if (r < 0.12) return repeatCp(rng.pick(ASTRAL1), rng.pick([1, 200, 254, 255]));
  if (r < 0.2) return repeatCp("x", 254) + rng.pick(ASTRAL1);
  if (r < 0.3) return rng.pick(["\ufeff", "\u200b", "\u180e", "\ufeff\ufeff"]) + (rng.chance(0.5) ? base : "");
  if (r < 0.42) return rng.pick(WHITESPACE_STRINGS) + base + rng.pick(WHITESPACE_STRINGS);
  if (r < 0.55) return rng.pick(PROTO_STRINGS);
  if (r < 0.65) return base + "\u0000\u0001\u001f\x7f";
  if (r < 0.75) return rng.pick(PRIVATE_BMP) + base + rng.pick(ASTRAL);
  if (r < 0.85) return base + '\u2028\u2029"\\/';
  return base + "-\u00e9\u4e2d\u{1f600}";
}

function identifier(rng: Rng, base: string, weirdness: number): string {
  const id = rng.chance(weirdness) ? weirdIdentifier(rng, base) : base;
  if (!isBoundedIdentifier(id)) throw new Error(`generator produced an invalid identifier ${JSON.stringify(id)}`);
  return id;
}

function sortedRoles(rng: Rng): string[] {
  const r = rng.next();
  let roles: string[];
  if (r < 0.45) roles = [];
  else if (r < 0.65) roles = ["support_admin"];
  else if (r < 0.8) {
    roles = ["support_admin", "\ue000-role", "\u{1f600}-role", "\uff61", "\u{10000}", "agent"];
    roles = roles.filter(() => rng.chance(0.7));
  } else if (r < 0.88) {
    const set = new Set<string>();
    for (let i = 0; i < 32; i++) set.add(`role-${i}-${rng.pick([...ASTRAL, ...PRIVATE_BMP, "a", "Z"])}`);
    while (set.size < 32) set.add(`role-extra-${set.size}`);
    roles = [...set];
    if (rng.chance(0.5)) {
      roles.pop();
      roles.push("support_admin");
    }
  } else {
    roles = [
      "support_admin ",
      "Support_admin",
      "\ufeffsupport_admin",
      "support\u00a0admin",
      repeatCp("\u{1f600}", 255),
      "\ufeff",
    ];
    roles = roles.filter(() => rng.chance(0.6));
  }
  roles = [...new Set(roles)];
  roles.sort(cpCompare);
  return roles;
}

function pickPrincipal(rng: Rng): Principal {
  const r = rng.next();
  if (r < 0.45) return { tenant_id: "tenant-a", subject_id: "user-1", roles: sortedRoles(rng) };
  if (r < 0.55) return { tenant_id: "tenant-a", subject_id: "user-2", roles: sortedRoles(rng) };
  if (r < 0.65)
    return {
      tenant_id: "tenant-a",
      subject_id: "user-3",
      roles: rng.chance(0.7) ? ["support_admin"] : sortedRoles(rng),
    };
  if (r < 0.75) return { tenant_id: "tenant-b", subject_id: "user-1", roles: sortedRoles(rng) };
  if (r < 0.82) return { tenant_id: "tenant-c", subject_id: "user-1", roles: ["support_admin"] };
  return {
    tenant_id: identifier(rng, "tenant-a", 0.9),
    subject_id: identifier(rng, "user-1", 0.7),
    roles: sortedRoles(rng),
  };
}

const SPECIAL_NOWS = [
  0,
  1,
  59,
  60,
  61,
  86399,
  86400,
  951782400,
  951868799,
  1784419200,
  2147483647,
  2147483648,
  4294967295,
  4294967296,
  4107542400,
  253402300738,
  MAX_NOW,
  MAX_NOW - 1,
  253402214400,
  68256230399,
  32503680000,
];

function pickNow(rng: Rng, base: number): number {
  const r = rng.next();
  if (r < 0.25) return rng.pick(SPECIAL_NOWS);
  if (r < 0.35) return rng.int(0, MAX_NOW);
  return Math.min(MAX_NOW, base + rng.int(0, 120));
}

// ---------------------------------------------------------------------------------------------
// Arguments

function validReadArgs(rng: Rng, orderRef: string): Obj {
  return new Obj([["order_ref", orderRef]]);
}

function validWriteArgs(rng: Rng, orderRef: string, reason: string): Obj {
  const entries: Array<[string, Gv]> = [
    ["order_ref", orderRef],
    ["reason", reason],
  ];
  if (rng.chance(0.5)) entries.reverse();
  return new Obj(entries);
}

/** An order reference chosen to probe lengths, whitespace and lookups. */
function trickyOrderRef(rng: Rng): Gv {
  const r = rng.next();
  if (r < 0.1) return repeatCp(rng.pick(ASTRAL1), rng.pick([63, 64, 65, 32, 33]));
  if (r < 0.18) return repeatCp("A", rng.pick([63, 64, 65]));
  if (r < 0.25) return repeatCp(rng.pick(ASTRAL1), 63) + rng.pick(["A", "\u{1f600}", " ", "\x1c"]);
  if (r < 0.4) return rng.pick(WHITESPACE_STRINGS);
  if (r < 0.5) return rng.pick(WHITESPACE_STRINGS) + "ORDER-7" + (rng.chance(0.5) ? rng.pick(WHITESPACE_STRINGS) : "");
  if (r < 0.58) return repeatCp(" ", rng.int(64, 70)) + "x";
  if (r < 0.68) return rng.pick(PROTO_STRINGS);
  if (r < 0.78) return trapNumber(rng);
  if (r < 0.83) return rng.pick([null, true, false]);
  if (r < 0.88) return ["ORDER-7"];
  if (r < 0.92) return new Obj([["order_ref", "ORDER-7"]]);
  return rng.pick(["order-7", "ORDER-07", "ORDER-7\u0000", "ORDER\u20117", "ORDER-10", "ORDER-6"]);
}

function trickyReason(rng: Rng): Gv {
  const r = rng.next();
  if (r < 0.3)
    return rng.pick([
      "Duplicate",
      "duplicate ",
      " damaged",
      "other\x1c",
      "\ufeffother",
      "refund",
      "constructor",
      "__proto__",
    ]);
  if (r < 0.5) return rng.pick(WHITESPACE_STRINGS);
  if (r < 0.6) return repeatCp("\u{1f600}", rng.pick([32, 33]));
  if (r < 0.8) return trapNumber(rng);
  return rng.pick([null, [], new Obj([])]);
}

/** Arguments that the reference refuses (INVALID_ARGUMENTS) or finds nothing for, full of traps. */
function trickyArgs(rng: Rng, tool: string): Obj {
  const write = tool === "create_refund_draft";
  const r = rng.next();
  const base: Array<[string, Gv]> = write
    ? [
        ["order_ref", rng.chance(0.5) ? "ORDER-7" : trickyOrderRef(rng)],
        ["reason", rng.chance(0.5) ? rng.pick(REASONS) : trickyReason(rng)],
      ]
    : [["order_ref", trickyOrderRef(rng)]];
  if (r < 0.45) return new Obj(rng.shuffle(base));
  // extra keys with trap values
  const extra = trapObject(rng, rng.int(0, 4), rng.int(1, 6));
  const entries: Array<[string, Gv]> = write
    ? [
        ["order_ref", rng.pick(["ORDER-7", "ORDER-8", "ORDER-9"])],
        ["reason", rng.pick(REASONS)],
      ]
    : [["order_ref", rng.pick(["ORDER-7", "ORDER-8", "ORDER-9"])]];
  const names = new Set(entries.map(([k]) => k));
  for (const [k, v] of extra.entries) if (!names.has(k)) entries.push([k, v]);
  if (r < 0.55 && entries.length > 1) entries.splice(0, 1); // drop a required key
  if (r > 0.93) entries.push(["deep", deepValue(rng, rng.int(20, 25))]);
  if (r > 0.88 && r <= 0.9) {
    // an object at the 1,024-field limit, keys mixing trap keys and numeric-looking ones
    const wide: Array<[string, Gv]> = [];
    const seen = new Set<string>();
    for (const k of TRAP_KEYS) {
      seen.add(k);
      wide.push([k, trapNumber(rng)]);
    }
    for (let i = 0; wide.length < 1024; i++) {
      const k = rng.chance(0.5) ? String(i) : `${rng.pick(ASTRAL1)}${i}`;
      if (seen.has(k)) continue;
      seen.add(k);
      wide.push([k, i % 3 === 0 ? new Num(String(i)) : i % 3 === 1 ? null : true]);
    }
    entries.push(["wide", new Obj(rng.shuffle(wide))]);
  }
  if (r > 0.9 && r <= 0.93) {
    const big: Gv[] = [];
    const n = rng.pick([1024, 1000, 512]);
    for (let i = 0; i < n; i++)
      big.push(rng.chance(0.8) ? new Num(String(i % 10)) : new Num(rng.pick(["1.0", "-0.0", "1e-07"])));
    entries.push(["many", big]);
  }
  return new Obj(rng.shuffle(entries));
}

// ---------------------------------------------------------------------------------------------
// Case generation

interface Pools {
  provider: Provider;
  responseIds: string[];
  callIds: string[];
  idemKeys: string[];
  seq: number;
  now: number;
}

function pickProvider(rng: Rng, pools: Pools): Provider {
  return rng.chance(0.75) ? pools.provider : rng.pick(PROVIDERS);
}

function newCtx(rng: Rng, pools: Pools, idem: string | null, provider?: Provider): Ctx {
  const p = provider ?? pickProvider(rng, pools);
  pools.seq += 1;
  const reuseCall = rng.chance(0.12) && pools.callIds.length > 0;
  const callId = reuseCall ? rng.pick(pools.callIds) : identifier(rng, `call-${pools.seq}`, 0.12);
  if (!reuseCall) pools.callIds.push(callId);
  return {
    provider: p.provider,
    api_family: p.api_family,
    adapter_revision: p.adapter_revision,
    response_id: rng.chance(0.8) ? rng.pick(pools.responseIds) : identifier(rng, `resp-${pools.seq}`, 0.15),
    call_id: callId,
    operation_id: identifier(rng, `op-${pools.seq}`, 0.08),
    idempotency_key: idem,
  };
}

function expectedFor(rng: Rng, o: Outcome, wrong: boolean): Obj {
  const code = o.code;
  const meta = code === "OK" ? { status: "succeeded", outcome: "committed", recovery: "none" } : CATALOG[code];
  if (meta === undefined) throw new Error(`unknown code ${code}`);
  const fields: Record<string, Gv> = {
    code,
    status: meta.status,
    outcome: meta.outcome,
    recovery: meta.recovery,
    delivery: o.delivery,
    data: o.data === null ? null : new Obj(rng.chance(0.5) ? [...o.data].reverse() : [...o.data]),
    side_effect_count: new Num(o.sideEffects === 0 && rng.chance(0.2) ? "-0" : String(o.sideEffects)),
  };
  if (wrong) {
    const which = rng.int(0, 7);
    if (which === 0) fields.code = rng.pick(ALL_CODES.filter((c) => c !== code));
    else if (which === 1) fields.status = rng.pick(["succeeded", "failed", "unknown"].filter((s) => s !== meta.status));
    else if (which === 2)
      fields.outcome = rng.pick(["not_started", "committed", "unknown"].filter((s) => s !== meta.outcome));
    else if (which === 3)
      fields.recovery = rng.pick(
        ["none", "correct_input", "request_approval", "retry_after", "query_status", "human_review"].filter(
          (s) => s !== meta.recovery,
        ),
      );
    else if (which === 4)
      fields.delivery = rng.pick(["fresh", "local_replay", "receipt_reconciled"].filter((s) => s !== o.delivery));
    else if (which === 5)
      fields.side_effect_count = new Num(rng.chance(0.2) ? "9007199254740991" : String(o.sideEffects + rng.int(1, 3)));
    else if (which === 6) {
      // data that a careless deep-equal might accept
      const base = o.data ?? [
        ["order_ref", "ORDER-7"],
        ["status", "paid"],
      ];
      fields.data = rng.pick<Gv>([
        new Obj([...base, ["__proto__", new Obj([])]]),
        new Obj([["__proto__", new Obj(base)]]),
        new Obj([...base, ["constructor", null]]),
        o.data === null ? new Obj([]) : null,
        new Obj(base.slice(1)),
      ]);
    } else {
      fields.data =
        o.data === null
          ? new Obj([
              ["order_ref", "ORDER-7"],
              ["status", "paid"],
            ])
          : new Obj(o.data.map(([k, v]) => [k, `${v} `]));
    }
  }
  const entries = Object.entries(fields) as Array<[string, Gv]>;
  return new Obj(rng.chance(0.3) ? rng.shuffle(entries) : entries);
}

type StepKind = "read" | "write" | "write_unknown" | "write_replay" | "query" | "unknown_tool" | "repeat_call";

interface History {
  step: StepDraft;
}

function generateCase(rng: Rng, caseId: string, maxSteps: number, tags: Set<string>): CaseDraft {
  const principal = pickPrincipal(rng);
  const model = new ModelDispatcher(principal);
  const provider = rng.pick(PROVIDERS);
  const pools: Pools = {
    provider,
    responseIds: [identifier(rng, "resp-1", 0.2), identifier(rng, "resp-2", 0.1)],
    callIds: [],
    idemKeys: [
      identifier(rng, "refund-key-1", 0.25),
      identifier(rng, "refund-key-2", 0.15),
      identifier(rng, "refund-key-3", 0.1),
    ],
    seq: 0,
    now: rng.chance(0.2) ? rng.pick(SPECIAL_NOWS) : 1784419200 + rng.int(0, 86400 * 365),
  };
  const ownOrders = [...ORDERS.entries()]
    .filter(
      ([, o]) =>
        o.tenant === principal.tenant_id &&
        (o.owner === principal.subject_id || principal.roles.includes("support_admin")),
    )
    .map(([k]) => k);
  const orderPick = (): string =>
    ownOrders.length > 0 && rng.chance(0.8) ? rng.pick(ownOrders) : rng.pick([...ORDERS.keys()]);
  const steps: StepDraft[] = [];
  const history: History[] = [];
  const stepIds = new Set<string>();
  const nSteps = rng.int(1, maxSteps);
  const wrongRate = rng.chance(0.5) ? 0 : 0.06;

  // Often start with a directed chain: an uncertain write, then its reconciliation.
  const plan: StepKind[] = rng.chance(0.4)
    ? ["write_unknown", "query", ...(rng.chance(0.5) ? (["write_replay"] as StepKind[]) : [])]
    : [];
  for (let attempt = 0; steps.length < nSteps && attempt < nSteps * 6; attempt++) {
    const planned = plan.shift();
    const kind =
      planned ??
      rng.weighted<StepKind>([
        [3, "read"],
        [4, "write"],
        [2, "write_replay"],
        [3, "query"],
        [1, "unknown_tool"],
        [1, "repeat_call"],
      ]);
    let stepId = identifier(rng, `step-${steps.length + 1}`, 0.1);
    if (stepIds.has(stepId)) stepId = `step-${steps.length + 1}-${attempt}`;
    const now = pickNow(rng, pools.now);
    let name: string;
    let args: Gv;
    let ctx: Ctx;
    let approval: ApprovalMode = "none";
    let failure: Failure = "none";
    let action: StepDraft["action"] = "dispatch";
    let statusRefFrom: string | null = null;
    let statusRef: string | null = null;

    if (kind === "read") {
      name = "get_order";
      args = rng.chance(0.7) ? validReadArgs(rng, orderPick()) : trickyArgs(rng, name);
      ctx = newCtx(rng, pools, rng.chance(0.2) ? rng.pick(pools.idemKeys) : null);
      approval = rng.pick(APPROVALS);
      failure = rng.weighted<Failure>([
        [6, "none"],
        [1, "timeout_before_execute"],
        [1, "rate_limit"],
        [1, "tool_error"],
        [1, "timeout_after_commit"],
        [1, "timeout_after_commit_receipt_unavailable"],
      ]);
    } else if (kind === "write_unknown") {
      name = "create_refund_draft";
      args = validWriteArgs(rng, orderPick(), rng.pick(REASONS));
      ctx = newCtx(rng, pools, rng.pick(pools.idemKeys));
      approval = "valid";
      failure = rng.pick(["timeout_after_commit", "timeout_after_commit_receipt_unavailable"] as const);
    } else if (kind === "write") {
      name = "create_refund_draft";
      args = rng.chance(0.8) ? validWriteArgs(rng, orderPick(), rng.pick(REASONS)) : trickyArgs(rng, name);
      ctx = newCtx(rng, pools, rng.chance(0.93) ? rng.pick(pools.idemKeys) : null);
      approval = rng.weighted<ApprovalMode>([
        [6, "valid"],
        [1, "none"],
        [1, "expired"],
        [1, "mismatched"],
      ]);
      failure = rng.weighted<Failure>([
        [5, "none"],
        [1, "timeout_before_execute"],
        [1, "rate_limit"],
        [1, "tool_error"],
        [2, "timeout_after_commit"],
        [2, "timeout_after_commit_receipt_unavailable"],
      ]);
    } else if (kind === "write_replay" || kind === "repeat_call") {
      const prior = history.filter(
        (h) => h.step.action === "dispatch" && (kind === "repeat_call" || h.step.name === "create_refund_draft"),
      );
      if (prior.length === 0) continue;
      const src = rng.pick(prior).step;
      name = src.name;
      // same request, maybe in another key order; sometimes a different request
      const change = rng.next();
      if (src.args instanceof Obj && change < 0.7) args = new Obj(rng.shuffle([...src.args.entries]));
      else if (change < 0.85)
        args =
          name === "create_refund_draft"
            ? validWriteArgs(rng, orderPick(), rng.pick(REASONS))
            : validReadArgs(rng, orderPick());
      else args = src.args;
      if (kind === "repeat_call") {
        // same provider call identity; same or different operation/request
        ctx = { ...src.ctx };
        if (rng.chance(0.4)) ctx.operation_id = identifier(rng, `op-again-${steps.length}`, 0.1);
        tags.add("repeat-call");
      } else {
        const p = rng.chance(0.75)
          ? (PROVIDERS.find((x) => x.provider === src.ctx.provider) ?? provider)
          : rng.pick(PROVIDERS);
        ctx = newCtx(rng, pools, rng.chance(0.9) ? src.ctx.idempotency_key : rng.pick(pools.idemKeys), p);
      }
      approval =
        name === "create_refund_draft" || TOOLS.has(name)
          ? rng.weighted<ApprovalMode>([
              [3, "valid"],
              [2, "none"],
              [1, "expired"],
              [1, "mismatched"],
            ])
          : "none";
      failure = rng.pick(FAILURES);
    } else if (kind === "query") {
      const refs = history.filter((h) => h.step.predicted.statusRef !== null);
      if (refs.length === 0) continue;
      // prefer unknown outcomes
      const unknowns = refs.filter((h) => h.step.predicted.code === "OUTCOME_UNKNOWN");
      const src = (unknowns.length > 0 && rng.chance(0.7) ? rng.pick(unknowns) : rng.pick(refs)).step;
      action = "query_status";
      statusRefFrom = src.step_id;
      statusRef = src.predicted.statusRef;
      name = rng.chance(0.9) ? src.name : rng.pick(["get_order", "create_refund_draft"]);
      const change = rng.next();
      if (change < 0.75 && src.args instanceof Obj) args = new Obj(rng.shuffle([...src.args.entries]));
      else if (change < 0.85)
        args =
          name === "get_order" ? validReadArgs(rng, orderPick()) : validWriteArgs(rng, orderPick(), rng.pick(REASONS));
      else args = trickyArgs(rng, name);
      const c = rng.next();
      if (c < 0.12) {
        ctx = { ...src.ctx }; // reuse the dispatch's call identity
        tags.add("query-reuses-call-id");
      } else {
        const p = c < 0.85 ? (PROVIDERS.find((x) => x.provider === src.ctx.provider) ?? provider) : rng.pick(PROVIDERS);
        const idem = c < 0.93 ? src.ctx.idempotency_key : rng.chance(0.5) ? null : rng.pick(pools.idemKeys);
        ctx = newCtx(rng, pools, idem, p);
      }
    } else {
      name = rng.pick([
        "delete_order",
        "get_order ",
        " get_order",
        "Get_order",
        "get_order\u0000",
        "\ufeffget_order",
        "create_refund_draft\u00a0",
        "__proto__",
        "constructor",
        "toString",
        "hasOwnProperty",
        repeatCp("\u{1f600}", 255),
        "get\u2028order",
        "\u{10ffff}",
      ]);
      args = rng.chance(0.5) ? trapObject(rng, rng.int(0, 5), rng.int(0, 8)) : trickyArgs(rng, "get_order");
      ctx = newCtx(rng, pools, rng.chance(0.5) ? rng.pick(pools.idemKeys) : null);
      failure = rng.pick(FAILURES);
    }

    let predicted: Outcome;
    try {
      if (action === "query_status") predicted = model.queryStatus(name, args, ctx, statusRef as string);
      else {
        try {
          predicted = model.dispatch(name, args, ctx, approval, failure);
        } catch (e) {
          if (!(e instanceof WouldRaise)) throw e;
          // The reference would raise here: an approval for an unknown tool, or a
          // timeout_after_commit that reaches a read's handler. Retry with a safe choice (the
          // read path up to that point only rebinds the same fingerprint).
          approval = TOOLS.has(name) ? approval : "none";
          failure = rng.pick(["none", "timeout_before_execute", "rate_limit", "tool_error"] as const);
          predicted = model.dispatch(name, args, ctx, approval, failure);
        }
      }
    } catch (e) {
      if (e instanceof WouldRaise) continue;
      throw e;
    }
    if (
      action === "dispatch" &&
      name === "get_order" &&
      (failure === "timeout_after_commit" || failure === "timeout_after_commit_receipt_unavailable")
    ) {
      tags.add("read-with-timeout-after-commit-stops-early");
    }
    if (action === "query_status" && predicted.code === "NOT_FOUND" && statusRefFrom !== null) {
      const src = steps.find((x) => x.step_id === statusRefFrom);
      if (src !== undefined && src.predicted.code === "OK") tags.add("query-of-committed-write-not-found");
    }
    if (
      action === "dispatch" &&
      predicted.code === "OUTCOME_UNKNOWN" &&
      predicted.sideEffects === model.sideEffects &&
      failure !== "timeout_after_commit" &&
      failure !== "timeout_after_commit_receipt_unavailable"
    ) {
      tags.add("retry-of-uncertain-write-stays-unknown");
    }
    if (predicted.delivery === "local_replay" && failure !== "none") tags.add("failure-ignored-on-local-replay");
    if (predicted.delivery === "local_replay" && approval !== "valid") tags.add("approval-ignored-on-local-replay");
    if (name === "get_order" && approval !== "none" && predicted.code === "OK") tags.add("approval-ignored-on-read");
    if (predicted.code === "IDEMPOTENCY_CONFLICT" && kind === "write_replay")
      tags.add("idempotency-conflict-on-replay");
    if (action === "query_status" && predicted.code === "CALL_ID_CONFLICT") tags.add("query-call-id-conflict");
    if (predicted.code === "APPROVAL_INVALID" && approval === "valid") tags.add("approval-id-over-255-code-points");
    if (name === "get_order" && args instanceof Obj && args.keys().includes("__proto__"))
      tags.add("proto-key-in-arguments");
    const wrong = rng.chance(wrongRate);
    const draft: StepDraft = {
      step_id: stepId,
      action,
      name,
      args,
      ctx,
      approval,
      failure,
      now,
      status_ref_from: statusRefFrom,
      expected: expectedFor(rng, predicted, wrong),
      predicted,
      wrongExpected: wrong,
    };
    stepIds.add(stepId);
    steps.push(draft);
    history.push({ step: draft });
    tags.add(`code:${predicted.code}`);
    tags.add(`delivery:${predicted.delivery}`);
    tags.add(`provider:${ctx.provider}`);
    tags.add(`approval:${approval}`);
    tags.add(`failure:${failure}`);
    tags.add(`action:${action}`);
  }
  if (steps.length === 0) {
    // always at least one step: a plain read
    const ctx = newCtx(rng, pools, null);
    const args = validReadArgs(rng, "ORDER-7");
    const predicted = model.dispatch("get_order", args, ctx, "none", "none");
    steps.push({
      step_id: "step-1",
      action: "dispatch",
      name: "get_order",
      args,
      ctx,
      approval: "none",
      failure: "none",
      now: pools.now,
      status_ref_from: null,
      expected: expectedFor(rng, predicted, false),
      predicted,
      wrongExpected: false,
    });
  }
  return { id: caseId, principal, steps };
}

// ---------------------------------------------------------------------------------------------
// Emitting JSON text with full control over lexemes, escapes, key order and whitespace

interface Style {
  pretty: boolean;
  escapeRate: number;
  loose: boolean;
}

function escapeString(rng: Rng, s: string, style: Style): string {
  if (style.escapeRate === 0 || !rng.chance(style.escapeRate * 4)) return JSON.stringify(s);
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0) as number;
    const plain = JSON.stringify(ch).slice(1, -1);
    if (rng.chance(style.escapeRate)) {
      if (cp > 0xffff) {
        const hi = 0xd800 + ((cp - 0x10000) >> 10);
        const lo = 0xdc00 + ((cp - 0x10000) & 0x3ff);
        out += `\\u${hi.toString(16).padStart(4, "0")}\\u${lo.toString(16).padStart(4, "0")}`;
      } else if (ch === "/") {
        out += "\\/";
      } else {
        const hex = cp.toString(16).padStart(4, "0");
        out += `\\u${rng.chance(0.5) ? hex.toUpperCase() : hex}`;
      }
    } else {
      out += plain;
    }
  }
  return out + '"';
}

function ws(rng: Rng, style: Style): string {
  if (!style.loose || !rng.chance(0.3)) return "";
  return rng.pick([" ", "\t", "\n", "\r\n", "  "]);
}

export function emit(rng: Rng, v: Gv, style: Style, indent = ""): string {
  if (v === null) return "null";
  if (v === true) return "true";
  if (v === false) return "false";
  if (typeof v === "string") return escapeString(rng, v, style);
  if (v instanceof Num) return v.lexeme;
  const inner = style.pretty ? `${indent}  ` : "";
  const nl = style.pretty ? "\n" : "";
  if (Array.isArray(v)) {
    if (v.length === 0) return "[]";
    const items = v.map((x) => `${inner}${ws(rng, style)}${emit(rng, x, style, inner)}${ws(rng, style)}`);
    return `[${nl}${items.join(`,${nl}`)}${nl}${indent}]`;
  }
  if (v.entries.length === 0) return "{}";
  const sep = style.pretty ? ": " : ":";
  const items = v.entries.map(
    ([k, x]) =>
      `${inner}${ws(rng, style)}${escapeString(rng, k, style)}${ws(rng, style)}${sep}${ws(rng, style)}${emit(rng, x, style, inner)}${ws(rng, style)}`,
  );
  return `{${nl}${items.join(`,${nl}`)}${nl}${indent}}`;
}

function maybeShuffle(rng: Rng, entries: Array<[string, Gv]>): Obj {
  return new Obj(rng.chance(0.25) ? rng.shuffle(entries) : entries);
}

function caseToGv(rng: Rng, c: CaseDraft): Obj {
  const steps = c.steps.map((s) =>
    maybeShuffle(rng, [
      ["step_id", s.step_id],
      ["action", s.action],
      [
        "proposal",
        maybeShuffle(rng, [
          ["name", s.name],
          ["arguments", s.args],
        ]),
      ],
      [
        "execution_context",
        maybeShuffle(rng, [
          ["provider", s.ctx.provider],
          ["api_family", s.ctx.api_family],
          ["adapter_revision", s.ctx.adapter_revision],
          ["response_id", s.ctx.response_id],
          ["call_id", s.ctx.call_id],
          ["operation_id", s.ctx.operation_id],
          ["idempotency_key", s.ctx.idempotency_key],
        ]),
      ],
      ["approval", s.approval],
      ["failure", s.failure],
      // "-0" is Python's int 0: a valid `now`
      ["now", new Num(s.now === 0 && rng.chance(0.5) ? "-0" : String(s.now))],
      ["status_ref_from", s.status_ref_from],
      ["expected", s.expected],
    ]),
  );
  return maybeShuffle(rng, [
    ["id", c.id],
    [
      "principal",
      maybeShuffle(rng, [
        ["tenant_id", c.principal.tenant_id],
        ["subject_id", c.principal.subject_id],
        ["roles", c.principal.roles],
      ]),
    ],
    ["steps", steps],
  ]);
}

const CONTRACT = new Obj([
  ["model_result", "tool-model-result-v2"],
  ["protected_audit", "tool-audit-v2"],
]);

function fixtureText(rng: Rng, cases: CaseDraft[], style: Style): string {
  const root = new Obj([
    ["schema_version", "tool-cases-v2"],
    ["contract", CONTRACT],
    ["cases", cases.map((c) => caseToGv(rng, c))],
  ]);
  return `${emit(rng, root, style)}\n`;
}

export const MAX_FIXTURE_BYTES = 65_536;
const encoder = new TextEncoder();

export interface GenerateOptions {
  /** Upper bound of cases per fixture. */
  maxCases?: number;
  /** Upper bound of steps per case. */
  maxSteps?: number;
}

/**
 * Generates fixture number `index` of the corpus seeded by `seed`. Deterministic: the same
 * (seed, index) always gives the same bytes.
 */
export function generateFixture(seed: string, index: number, options: GenerateOptions = {}): GeneratedFixture {
  const rng = new Rng(`${seed}/${index}`);
  const tags = new Set<string>();
  const big = rng.chance(0.04);
  const manyCases = !big && rng.chance(0.03);
  const maxCases = options.maxCases ?? (big ? 3 : manyCases ? 40 : 4);
  const maxSteps = options.maxSteps ?? (big ? 60 : manyCases ? 2 : 7);
  const nCases = rng.int(1, maxCases);
  const style: Style = {
    pretty: rng.chance(0.15),
    escapeRate: rng.chance(0.2) ? 0.15 : 0,
    loose: rng.chance(0.15),
  };
  const emitSeed = `${seed}/${index}/emit`;
  const caseIds = new Set<string>();
  let cases: CaseDraft[] = [];
  for (let i = 0; i < nCases; i++) {
    let id = identifier(rng, `case-${i + 1}`, 0.15);
    if (caseIds.has(id)) id = `case-${i + 1}-dup`;
    caseIds.add(id);
    cases.push(generateCase(rng, id, maxSteps, tags));
  }
  // Keep within the size limit by dropping trailing steps and cases (later steps never change
  // the outcome of earlier ones).
  let text = fixtureText(new Rng(emitSeed), cases, style);
  while (encoder.encode(text).length > MAX_FIXTURE_BYTES) {
    const last = cases[cases.length - 1] as CaseDraft;
    if (last.steps.length > 1) last.steps.pop();
    else cases = cases.slice(0, -1);
    if (cases.length === 0) throw new Error("a single step exceeds the fixture size limit");
    text = fixtureText(new Rng(emitSeed), cases, style);
  }
  // Sometimes pad with trailing whitespace up to exactly the size limit.
  const size = encoder.encode(text).length;
  if (big && rng.chance(0.5) && size < MAX_FIXTURE_BYTES) {
    text += " ".repeat(MAX_FIXTURE_BYTES - size);
    tags.add("size:exactly-65536");
  }
  if (manyCases) tags.add("many-cases");
  if (text.includes('"wide"')) tags.add("object-with-1024-fields");
  if (style.escapeRate > 0) tags.add("style:escapes");
  if (style.pretty) tags.add("style:pretty");
  if (style.loose) tags.add("style:loose-whitespace");
  const wrong = cases.some((c) => c.steps.some((s) => s.wrongExpected));
  for (const c of cases) {
    if (
      c.principal.roles.some((r) => /[\u{10000}-\u{10ffff}]/u.test(r)) &&
      c.principal.roles.some((r) => /[\ue000-\uffff]/.test(r))
    ) {
      tags.add("roles:astral-and-private");
    }
    if (c.principal.roles.length === 32) tags.add("roles:32");
  }
  for (const m of text.matchAll(/[:[,]\s*(-?\d[\d.eE+-]*)/g)) {
    const lexeme = m[1] as string;
    if (FLOAT_LEXEMES.includes(lexeme)) tags.add(`float:${lexeme}`);
    else if (/[.eE]/.test(lexeme)) tags.add("float:random");
  }
  return { text, cases, predictedExit: wrong ? 1 : 0, tags: [...tags].sort() };
}
