/**
 * Hostile inputs: JSON-level and byte-level mutations of a valid body, parser attack
 * families (duplicate names, depth bombs, prototype keys, lone surrogates, huge numbers,
 * invalid UTF-8, BOM, truncation) and header attacks. Deterministic for a given PRNG.
 */
export interface HostileInput {
  family: string;
  body: Uint8Array | null;
  contentType: string | null;
  /** Extra headers, appended (so a repeated name is a duplicate header). */
  headers: Array<[string, string]>;
}

const enc = new TextEncoder();

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

const WEIRD_VALUES: unknown[] = [
  null,
  true,
  false,
  0,
  -0,
  1.5,
  -1,
  2 ** 53,
  1e308,
  "",
  "x".repeat(300),
  [],
  {},
  [[[]]],
  { a: { b: { c: 1 } } },
  "\u0000",
  "\u202e",
  "ORDER-7\n",
  "💥",
  ["a", 1, null],
  "tg_agent_x",
];
const RAW_VALUES = [
  "12345678901234567890",
  "1e400",
  "-1e400",
  "NaN",
  "Infinity",
  "-0",
  "0.1e-400",
  '"\\ud800"',
  '"\\udfff"',
  '"\\u0000"',
  "01",
  "1.",
  ".5",
  "+1",
  "0x10",
  "'x'",
  "undefined",
  "tru",
  "nul",
  '"\\x41"',
  '"\t"',
  "[1,]",
  "{,}",
  '{"a":1,}',
];
const PROTO_KEYS = ["__proto__", "constructor", "prototype"];

type Obj = Record<string, unknown>;

function paths(value: unknown, prefix: string[] = [], out: string[][] = []): string[][] {
  if (typeof value === "object" && value !== null) {
    for (const [k, v] of Object.entries(value as Obj)) {
      const p = [...prefix, k];
      out.push(p);
      paths(v, p, out);
    }
  }
  return out;
}

function setAt(root: unknown, path: string[], value: unknown, remove = false): unknown {
  const copy = structuredClone(root) as Obj;
  let node: any = copy;
  for (const step of path.slice(0, -1)) node = node[step];
  const last = path[path.length - 1] as string;
  if (remove) {
    if (Array.isArray(node)) node.splice(Number(last), 1);
    else delete node[last];
  } else node[last] = value;
  return copy;
}

function deep(depth: number, open: string, close: string, inner = "1"): string {
  return open.repeat(depth) + inner + close.repeat(depth);
}

/** Replaces the JSON text of the value at `path` with `raw` (a lexeme JSON.stringify cannot write). */
function rawAt(base: unknown, path: string[], raw: string): string {
  const marker = "\u0001RAW\u0001";
  return JSON.stringify(setAt(base, path, marker)).replace(JSON.stringify(marker), raw);
}

/** One hostile input derived from `base` (a valid body) and the PRNG. */
export function hostileInput(random: () => number, base: unknown): HostileInput {
  const text = JSON.stringify(base);
  const ps = paths(base);
  const json = "application/json";
  const r = random();
  const input = (
    family: string,
    body: string | Uint8Array | null,
    contentType: string | null = json,
    headers: Array<[string, string]> = [],
  ): HostileInput => ({
    family,
    body: typeof body === "string" ? enc.encode(body) : body,
    contentType,
    headers,
  });
  const path = ps.length > 0 ? pick(random, ps) : ["x"];
  if (r < 0.12) return input("value-swap", JSON.stringify(setAt(base, path, pick(random, WEIRD_VALUES))));
  if (r < 0.2) return input("remove-field", JSON.stringify(setAt(base, path, undefined, true)));
  if (r < 0.27) return input("raw-lexeme", rawAt(base, path, pick(random, RAW_VALUES)));
  if (r < 0.33) {
    const key = pick(random, PROTO_KEYS);
    const where = random() < 0.5 ? [] : path.slice(0, -1);
    const injected = `{"${key}":{"polluted":true,"roles":["admin"]}`;
    return input("prototype-key", rawAt(base, [...where, "\u0002"], injected).replace(`"\u0002":`, `"${key}":`));
  }
  if (r < 0.39) {
    // Duplicate member: the same key twice, the second value different.
    const i = text.indexOf("{");
    const member = path[path.length - 1] ?? "a";
    return input("duplicate-key", `${text.slice(0, i + 1)}"${member}":1,${text.slice(i + 1)}`);
  }
  if (r < 0.45) {
    const depth = pick(random, [33, 100, 1_000, 10_000, 60_000]);
    const bomb = random() < 0.5 ? deep(depth, "[", "]") : deep(depth, '{"a":', "}");
    return input("depth-bomb", random() < 0.5 ? bomb : rawAt(base, path, bomb));
  }
  if (r < 0.5)
    return input(
      "unknown-field",
      JSON.stringify(setAt(base, [...path.slice(0, -1), `x_${Math.floor(random() * 1e6)}`], 1)),
    );
  if (r < 0.58) {
    // Byte-level: flip, insert invalid UTF-8, delete, duplicate a slice.
    const bytes = Array.from(enc.encode(text));
    const n = 1 + Math.floor(random() * 4);
    for (let i = 0; i < n; i++) {
      const at = Math.floor(random() * bytes.length);
      const op = random();
      if (op < 0.3) bytes[at] = Math.floor(random() * 256);
      else if (op < 0.6) bytes.splice(at, 0, pick(random, [0xff, 0xfe, 0xc0, 0x80, 0xed, 0xa0, 0xf8, 0x00]));
      else if (op < 0.8) bytes.splice(at, 1 + Math.floor(random() * 8));
      else bytes.splice(at, 0, ...bytes.slice(at, at + 16));
    }
    return input("byte-mutation", Uint8Array.from(bytes));
  }
  if (r < 0.62) return input("truncated", text.slice(0, Math.floor(random() * text.length)));
  if (r < 0.66) {
    const s = pick(random, ['"\\ud800"', '"\\udc00x"', '"a\\ud83d"', '"\\uD800\\u0041"']);
    return input("lone-surrogate", rawAt(base, path, s));
  }
  if (r < 0.69)
    return input(
      "invalid-utf8-string",
      Uint8Array.from([...enc.encode(text.slice(0, -1) + ',"z":"'), 0xc3, 0x28, 0xa0, 0xa1, ...enc.encode('"}')]),
    );
  if (r < 0.71) return input("bom", Uint8Array.from([0xef, 0xbb, 0xbf, ...enc.encode(text)]));
  if (r < 0.74) return input("oversize", `{"pad":"${"x".repeat(pick(random, [66_000, 70_000, 1_100_000]))}"}`);
  if (r < 0.77) return input("empty-or-blank", pick(random, ["", " ", "\n", "null", "[]", "0", '""', "{}"]));
  if (r < 0.82) {
    const ct = pick(random, [
      null,
      "text/plain",
      "application/json-patch+json",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
      "application/jsonx",
      "application/json; charset=utf-16",
      " application/JSON ",
      "application/json, text/plain",
      "*/*",
    ]);
    return input("content-type", text, ct);
  }
  if (r < 0.87) {
    const dup = pick(random, [
      ["content-type", "text/plain"],
      ["content-type", "application/json"],
      ["idempotency-key", "k1"],
      ["idempotency-key", "k2"],
      ["authorization", "Bearer tg_agent_zzzz"],
      ["x-forwarded-for", "10.0.0.1"],
      ["transfer-encoding", "chunked"],
      ["content-encoding", "gzip"],
    ] as Array<[string, string]>);
    return input("duplicate-header", text, json, [dup, ["idempotency-key", "k-dup"]]);
  }
  if (r < 0.92) {
    // Many keys, long strings, wide arrays: within or just past the limits.
    const wide = `[${Array.from({ length: pick(random, [1_025, 5_000]) }, () => "1").join(",")}]`;
    return input("wide", rawAt(base, path, wide));
  }
  const noise = new Uint8Array(1 + Math.floor(random() * 256));
  for (let i = 0; i < noise.length; i++) noise[i] = Math.floor(random() * 256);
  return input("random-bytes", noise);
}

/**
 * Authorization header values that must all be refused with the one 401. (A lower-case scheme
 * or several spaces after it are valid, RFC 9110 §11.4, so they are not in this set.)
 */
export function hostileAuthorization(random: () => number, genuine: string): string | null {
  const r = random();
  if (r < 0.1) return null;
  if (r < 0.2) return genuine.slice(0, Math.floor(random() * genuine.length));
  if (r < 0.35) {
    const i = Math.floor(random() * genuine.length);
    const c = genuine[i] === "A" ? "B" : "A";
    return `Bearer ${genuine.slice(0, i)}${c}${genuine.slice(i + 1)}`;
  }
  if (r < 0.45) return `Bearer\t${genuine}`;
  if (r < 0.55) return `Token ${genuine}`;
  if (r < 0.6) return `Bearer ${genuine}, Bearer ${genuine}`;
  if (r < 0.65) return `Basic ${btoa("user:pass")}`;
  if (r < 0.7) return `Bearer ${genuine.replace(/^tg_[a-z]+_/, "tg_admin_")}`;
  if (r < 0.75) return `Bearer ${"x".repeat(Math.floor(random() * 5000))}`;
  if (r < 0.8) return "Bearer ";
  if (r < 0.85) return `Bearer ${genuine}x`;
  if (r < 0.9) return `Bearer tg_agent_${"A".repeat(40)}_AAAAAA`;
  const chars = "abcXYZ019_-.~+/=%";
  let s = "Bearer ";
  const n = Math.floor(random() * 80);
  for (let i = 0; i < n; i++) s += chars[Math.floor(random() * chars.length)];
  return s;
}
