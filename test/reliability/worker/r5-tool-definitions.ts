/**
 * R5 bodies of the tools-as-data admin routes: valid tool definitions (a read and a write, as in
 * test/worker/tools/data-tools.test.ts) and hostile ones written to hit each bound of the schema
 * subset and of the CEL policies (src/core/tool-schema/limits.ts, src/core/policy/limits.ts):
 * deep schemas, huge enums, pathological patterns, CEL bombs, many properties, long strings.
 * Each hostile body is named so a slow or failing one can be reported.
 */

/** The tool name every definition of the surface is PUT under. */
export const R5_TOOL = "r5_tool";
/** The secret the write's `secret_headers` names (created before the surface runs). */
export const R5_SECRET = "ledger_token";

const text = (n: number, unit = "a") => unit.repeat(n);

export const READ_DEFINITION = {
  description: "Look up a customer's tier.",
  risk: "read",
  input: {
    type: "object",
    properties: { customer: { type: "string", minLength: 1, maxLength: 8 } },
    required: ["customer"],
    additionalProperties: false,
  },
  output: {
    schema: {
      type: "object",
      properties: { customer: { type: "string" }, tier: { type: "string", enum: ["gold", "silver"] } },
      required: ["customer", "tier"],
      additionalProperties: false,
    },
    bound_to_arguments: { customer: "customer" },
  },
  authorize: '"support" in principal.roles',
  target: { kind: "http", url: "https://ledger.test/customers/lookup" },
};

export const WRITE_DEFINITION = {
  description: "Create an invoice.",
  risk: "write",
  timeout_ms: 5_000,
  input: {
    type: "object",
    properties: {
      customer: { type: "string", minLength: 1, maxLength: 8 },
      amount: { type: "integer", minimum: 1, maximum: 100_000 },
      lines: {
        type: "array",
        maxItems: 20,
        items: {
          type: "object",
          properties: {
            sku: { type: "string", pattern: "^[A-Z]{3}-[0-9]{4}$" },
            qty: { type: "number", exclusiveMinimum: 0 },
          },
          required: ["sku"],
          additionalProperties: false,
        },
      },
      note: { type: "string", maxLength: 200, description: "Free text." },
    },
    required: ["customer", "amount"],
    additionalProperties: false,
  },
  output: {
    schema: {
      type: "object",
      properties: {
        invoice_id: { type: "string", maxLength: 16, pattern: "^INV-[0-9]+$" },
        customer: { type: "string" },
        amount: { type: "integer" },
      },
      required: ["invoice_id", "customer", "amount"],
      additionalProperties: false,
    },
    bound_to_arguments: { customer: "customer", amount: "amount" },
    max_bytes: 4_096,
    max_depth: 4,
  },
  authorize: '"support" in principal.roles && args.amount <= 50000',
  approval: "args.amount > 100",
  target: {
    kind: "http",
    url: "https://ledger.test/invoices",
    headers: { "x-tenant": "r5" },
    secret_headers: { authorization: { secret: R5_SECRET, prefix: "Bearer " } },
    status_url: "https://ledger.test/invoices/status/{status_ref}",
    fence_url: "https://ledger.test/invoices/status/{status_ref}/fence",
  },
};

type Schema = Record<string, unknown>;

/** A schema of `levels` levels (the root object is level 1, the string at the bottom level `levels`). */
function deepObjects(levels: number): Schema {
  let node: Schema = { type: "string", maxLength: 4 };
  for (let i = 2; i < levels; i++) node = { type: "object", properties: { a: node }, additionalProperties: false };
  return { type: "object", properties: { a: node }, additionalProperties: false };
}

/** A schema of `levels` levels: a root object, arrays nested in each other, an integer at the bottom. */
function deepArrays(levels: number): Schema {
  let node: Schema = { type: "integer" };
  for (let i = 2; i < levels; i++) node = { type: "array", maxItems: 2, items: node };
  return { type: "object", properties: { a: node }, additionalProperties: false };
}

/** An object schema with `n` string properties named with `nameLength` code points. */
function manyProperties(
  n: number,
  nameLength = 8,
  child: (i: number) => Schema = () => ({ type: "string", maxLength: 8 }),
): Schema {
  const properties: Schema = {};
  for (let i = 0; i < n; i++) properties[`p${String(i).padStart(nameLength - 1, "0")}`] = child(i);
  return { type: "object", properties, additionalProperties: false };
}

/** The read with another input (no output field bound to it, so only the input decides). */
const withInput = (input: Schema) => ({
  ...READ_DEFINITION,
  input,
  output: { ...READ_DEFINITION.output, bound_to_arguments: {} },
});
const withString = (schema: Schema) =>
  withInput({
    type: "object",
    properties: { s: { type: "string", ...schema } },
    required: ["s"],
    additionalProperties: false,
  });
const withAuthorize = (authorize: string) => ({ ...READ_DEFINITION, authorize });
const withApproval = (approval: string) => ({ ...WRITE_DEFINITION, approval });

const list = (n: number) => `[${Array.from({ length: n }, (_, i) => i).join(",")}]`;
/** `("ab" + "ab")`-style doubling: each `.map` doubles the size of the string it carries. */
const doubling = (steps: number) => `["ab"]${".map(x, x + x)".repeat(steps)}.size() > 0`;
/** `expr && expr && …` filling `chars` code points. */
const chain = (expr: string, chars: number) =>
  Array.from({ length: Math.floor((chars + 4) / (expr.length + 4)) }, () => expr).join(" && ");

/** Verdicts as the test prints them: status, problem code, the refusal's JSON pointer. */
const OK = "200";
const BAD_JSON = "400 INVALID_JSON -";
const BAD_REQUEST = "400 INVALID_REQUEST -";
const refused = (pointer: string) => `422 INVALID_TOOL_DEFINITION ${pointer}`;
const PATTERN = "/input/properties/s/pattern";

/**
 * Hostile definitions (each within the 64 KiB body cap) and the verdict each bound implies: the
 * JSON reader's (depth 32, 1,024 entries per container), the contract's (a CEL source is at
 * most 2,048 code points), then the schema subset's and the CEL policy's, at the pointer of the
 * offending member.
 */
export const HOSTILE_DEFINITIONS: ReadonlyArray<readonly [name: string, body: unknown, verdict: string]> = [
  // Deep schemas (default bound: 8 levels; JSON nesting: 32).
  ["objects nested 8 levels (the bound)", withInput(deepObjects(8)), OK],
  ["objects nested 9 levels", withInput(deepObjects(9)), refused(`/input${"/properties/a".repeat(8)}`)],
  [
    "objects nested 16 levels (JSON depth 32)",
    withInput(deepObjects(16)),
    refused(`/input${"/properties/a".repeat(8)}`),
  ],
  ["objects nested 40 levels (JSON depth > 32)", withInput(deepObjects(40)), BAD_JSON],
  ["arrays nested 8 levels (the bound)", withInput(deepArrays(8)), OK],
  ["arrays nested 31 levels", withInput(deepArrays(31)), BAD_JSON],
  [
    "output nested 9 levels, max_depth 16",
    { ...READ_DEFINITION, output: { schema: deepObjects(9), max_depth: 16 } },
    refused(`/output/schema${"/properties/a".repeat(8)}`),
  ],
  // Huge enums (bound: 256 values; JSON containers: 1,024 entries).
  [
    "enum of 10,000 integers",
    withInput({
      type: "object",
      properties: { n: { type: "integer", enum: Array.from({ length: 10_000 }, (_, i) => i) } },
      additionalProperties: false,
    }),
    BAD_JSON,
  ],
  [
    "enum of 1,024 integers",
    withInput({
      type: "object",
      properties: { n: { type: "integer", enum: Array.from({ length: 1_024 }, (_, i) => i) } },
      additionalProperties: false,
    }),
    refused("/input/properties/n/enum"),
  ],
  [
    "enum of 256 strings of 200 code points",
    withString({ enum: Array.from({ length: 256 }, (_, i) => `${i}`.padStart(200, "x")) }),
    OK,
  ],
  [
    "enum of 40 strings of 1,025 code points",
    withString({ enum: Array.from({ length: 40 }, (_, i) => `${i}`.padStart(1_025, "x")) }),
    refused("/input/properties/s/enum/0"),
  ],
  [
    "enum repeating 1 as 1.0",
    withInput({
      type: "object",
      properties: { n: { type: "number", enum: [1, 2, 3, 1.5, 1] } },
      additionalProperties: false,
    }),
    refused("/input/properties/n/enum/4"),
  ],
  // Pathological patterns (bound: 256 code points, no catastrophic backtracking).
  ["pattern (a+)+$", withString({ pattern: "(a+)+$", maxLength: 64 }), refused(PATTERN)],
  ["pattern (a|aa)*b", withString({ pattern: "(a|aa)*b", maxLength: 64 }), refused(PATTERN)],
  ["pattern ^(a|a)*$", withString({ pattern: "^(a|a)*$" }), refused(PATTERN)],
  ["pattern ^(\\w+\\s?)*$", withString({ pattern: "^(\\w+\\s?)*$" }), refused(PATTERN)],
  ["pattern (.*a){20}", withString({ pattern: "(.*a){20}", maxLength: 64 }), refused(PATTERN)],
  ["pattern ^(?:a?){100}a{100}$", withString({ pattern: "^(?:a?){100}a{100}$" }), refused(PATTERN)],
  ["pattern of 256 literal code points", withString({ pattern: `^${text(255, "b")}` }), OK],
  ["pattern of 256 astral code points", withString({ pattern: `^${text(255, "😀")}` }), OK],
  ["pattern of 257 code points", withString({ pattern: `^${text(256, "b")}` }), refused(PATTERN)],
  ["pattern of 127 nested groups", withString({ pattern: `^${"(".repeat(127)}a${")".repeat(127)}` }), OK],
  [
    "pattern of 50 nested quantified groups",
    withString({ pattern: `^${"(?:".repeat(50)}a${")+".repeat(50)}` }),
    refused(PATTERN),
  ],
  ["pattern ^[\\s\\S]{0,1000}$", withString({ pattern: "^[\\s\\S]{0,1000}$" }), OK],
  ["pattern a{1000000}", withString({ pattern: "^a{1000000}" }), refused(PATTERN)],
  ["pattern unanchored without maxLength", withString({ pattern: "[0-9]+" }), refused(PATTERN)],
  ["pattern backreference", withString({ pattern: "^(a)\\1$" }), refused(PATTERN)],
  ["pattern lookbehind", withString({ pattern: "^(?<=a)b" }), refused(PATTERN)],
  ["pattern modifier group (?i:a)", withString({ pattern: "^(?i:a)+$" }), refused(PATTERN)],
  ["pattern property of strings", withString({ pattern: "^\\p{RGI_Emoji}$" }), refused(PATTERN)],
  ["pattern \\p{L}+\\p{N}", withString({ pattern: "^\\p{L}+\\p{N}$" }), refused(PATTERN)],
  ["pattern [^]*", withString({ pattern: "^[^]*$" }), OK],
  ["pattern unterminated class", withString({ pattern: "^[a-" }), refused(PATTERN)],
  ["pattern of code point escapes", withString({ pattern: "^[\\u{10FFFF}\\u{0}-\\u{1F}]+$" }), OK],
  // CEL bombs (bounds: 2,048 code points, 1,024 nodes, depth 32, 500,000 estimated steps).
  [
    "CEL nested comprehensions over args",
    withAuthorize('principal.roles.all(a, principal.roles.all(b, principal.roles.all(c, a + b + c != "")))'),
    refused("/authorize"),
  ],
  [
    "CEL nested comprehensions over 200-element lists",
    withAuthorize(`${list(200)}.all(a, ${list(200)}.all(b, a != b || true))`),
    OK,
  ],
  [
    "CEL three nested comprehensions over 60-element lists",
    withAuthorize(`${list(60)}.all(a, ${list(60)}.all(b, ${list(60)}.all(c, a + b != c || true)))`),
    refused("/authorize"),
  ],
  ["CEL string doubling 12 times", withAuthorize(doubling(12)), OK],
  ["CEL string doubling 40 times", withAuthorize(doubling(40)), refused("/authorize")],
  [
    "CEL roles joined and doubled",
    withAuthorize(`[principal.roles.join(",")]${".map(x, x + x)".repeat(8)}.exists(x, x.contains("support"))`),
    refused("/authorize"),
  ],
  ["CEL of 2,044 code points (256 × true)", withAuthorize(chain("true", 2_048)), OK],
  ["CEL of 2,049 code points", withAuthorize(`${chain("true", 2_040)} && true`.padEnd(2_049, " ")), BAD_REQUEST],
  ["CEL of 2,000 astral code points in a string", withAuthorize(`"${text(1_000, "😀")}" != ""`), OK],
  [
    "CEL 1,000 nested parentheses",
    withAuthorize(`${"(".repeat(1_000)}true${")".repeat(1_000)}`),
    refused("/authorize"),
  ],
  ["CEL 2,000 negations", withAuthorize(`${"!".repeat(2_000)}true`), refused("/authorize")],
  [
    "CEL 1,000 nested lists",
    withAuthorize(`size(${"[".repeat(1_000)}${"]".repeat(1_000)}) > 0`),
    refused("/authorize"),
  ],
  ["CEL selection chain of 600", withAuthorize(`has(principal.claims${".a".repeat(600)})`), refused("/authorize")],
  [
    "CEL 1,000-term sum",
    withAuthorize(`${Array.from({ length: 1_000 }, () => "1").join("+")} > 0`),
    refused("/authorize"),
  ],
  [
    "CEL 300-term concatenation of tool",
    withAuthorize(`size(${Array.from({ length: 300 }, () => "tool").join("+")}) > 0`),
    refused("/authorize"),
  ],
  [
    "CEL 130 chained ternaries",
    withAuthorize(`${Array.from({ length: 130 }, () => "true ? false :").join(" ")} true`),
    refused("/authorize"),
  ],
  ["CEL reading args 89 times", withAuthorize(chain('args.customer != ""', 2_048)), OK],
  [
    "CEL constant errors",
    withAuthorize('1 / 0 == 1 || int("99999999999999999999") > 0 || timestamp("9999-99-99") < timestamp(now)'),
    OK,
  ],
  ["CEL invalid escapes", withAuthorize('"\\uD800" == "\\U0010FFFF"'), refused("/authorize")],
  [
    "CEL disallowed functions",
    withAuthorize(
      'args.customer.matches("(a+)+$") && cel.bind(x, "a", x + x) != "" && duration("1s") > duration("0s")',
    ),
    refused("/authorize"),
  ],
  [
    "CEL approval of nested comprehensions",
    withApproval(`${list(200)}.exists(a, ${list(200)}.exists(b, args.amount > a * b))`),
    OK,
  ],
  [
    "CEL approval doubling args",
    withApproval(`[string(args.amount)]${".map(x, x + x)".repeat(30)}.size() > 0`),
    refused("/approval"),
  ],
  // Many properties (bounds: 128 members, 128-code-point names, 512 schema objects).
  ["128 properties with 128-code-point names", withInput(manyProperties(128, 128)), OK],
  ["129 properties", withInput(manyProperties(129)), refused("/input/properties")],
  [
    "513 schema objects",
    withInput(manyProperties(128, 8, () => manyProperties(3))),
    refused("/input/properties/p0000127/properties/p0000002"),
  ],
  [
    "a 129-code-point property name",
    withInput({ type: "object", properties: { [text(129, "😀")]: { type: "string" } }, additionalProperties: false }),
    refused(`/input/properties/${text(129, "😀")}`),
  ],
  [
    "required of 129 names, repeated",
    withInput({ ...manyProperties(1), required: Array.from({ length: 129 }, () => "p0000000") }),
    refused("/input/required/1"),
  ],
  [
    "100 bound_to_arguments",
    {
      ...READ_DEFINITION,
      output: {
        ...READ_DEFINITION.output,
        bound_to_arguments: Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`f${i}`, "customer"])),
      },
    },
    refused("/output/bound_to_arguments/f0"),
  ],
  // Long strings, numbers and other bounds.
  ["description of 1,024 code points", { ...READ_DEFINITION, description: text(1_024, "d") }, OK],
  ["description of 1,024 astral code points", { ...READ_DEFINITION, description: text(1_024, "😀") }, OK],
  ["schema title of 1,025 code points", withString({ title: text(1_025) }), refused("/input/properties/s/title")],
  ["maxLength of 2^53-1", withString({ maxLength: 9_007_199_254_740_991 }), refused("/input/properties/s/maxLength")],
  [
    "bounds at ±(2^53-1)",
    withInput({
      type: "object",
      properties: { n: { type: "integer", minimum: -9_007_199_254_740_991, exclusiveMaximum: 9_007_199_254_740_991 } },
      additionalProperties: false,
    }),
    OK,
  ],
  [
    "maxItems 1,001",
    withInput({
      type: "object",
      properties: { a: { type: "array", maxItems: 1_001, items: { type: "null" } } },
      additionalProperties: false,
    }),
    refused("/input/properties/a/maxItems"),
  ],
  [
    "unsupported keywords",
    withInput({
      type: "object",
      properties: { a: { $ref: "#" } },
      allOf: [{ $ref: "#" }],
      additionalProperties: false,
    }),
    refused("/input/allOf"),
  ],
  [
    // A list of distinct types is in the subset (the MCP SDK's nullable); one that repeats a type is not.
    "a list of types that repeats one",
    withInput({ type: "object", properties: { a: { type: ["string", "string"] } }, additionalProperties: false }),
    refused("/input/properties/a/type"),
  ],
  [
    "an anyOf of 17 alternatives",
    withInput({
      type: "object",
      properties: { a: { anyOf: Array.from({ length: 17 }, () => ({ type: "string" })) } },
      additionalProperties: false,
    }),
    refused("/input/properties/a/anyOf"),
  ],
  [
    "a 2,048-character target URL",
    { ...READ_DEFINITION, target: { kind: "http", url: `https://ledger.test/${text(2_028, "p")}` } },
    OK,
  ],
  [
    "200 headers of 200 characters",
    {
      ...READ_DEFINITION,
      target: {
        ...READ_DEFINITION.target,
        headers: Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`x-h${i}`, text(200, "v")])),
      },
    },
    OK,
  ],
  [
    "100 secret headers naming unknown secrets",
    {
      ...WRITE_DEFINITION,
      target: {
        ...WRITE_DEFINITION.target,
        secret_headers: Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`x-s${i}`, { secret: `s${i}` }])),
      },
    },
    refused("/target/secret_headers/x-s0/secret"),
  ],
  [
    "a target URL with credentials and an IPv6 loopback",
    { ...READ_DEFINITION, target: { kind: "http", url: "https://user:pw@[::1]:8443/x" } },
    refused("/target/url"),
  ],
];

/** Bodies of `PUT …/secrets/{name}`. */
export const SECRET_BODIES: unknown[] = [
  { value: "s3cret-token" },
  { value: text(4_096, "k") },
  { value: text(2_048, "😀") },
  { value: "Bearer \u0000\u202e\n" },
];
