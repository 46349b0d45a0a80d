// fast-check generators of the differential test: schemas of the subset (as plain values) and,
// for a schema, JSON texts near its boundaries, valid and invalid.
import fc from "fast-check";
import { patternRisk } from "../../../src/core/tool-schema";

/** A generated schema, as plain JSON-able data. */
export type GenSchema = { type: string; [keyword: string]: unknown };

const ALPHABET = ["a", "b", "c", "1", "😀", "-", " "];
const ATOMS = ["a", "b", "1", "😀", ".", "[a-c]", "[^a]", "\\d", "\\w", "-", "(?:ab)", "(?:a|1)", "[😀b]"];
const QUANTIFIERS = ["", "", "", "?", "*", "+", "{2}", "{1,3}", "{0,2}"];
const NAMES = ["a", "b", "c d", "é", "x/y", "~0"];

/** Present with weight `on`, absent with weight `off`. */
function maybe<T>(arb: fc.Arbitrary<T>, on = 1, off = 1): fc.Arbitrary<T | undefined> {
  return fc.oneof({ arbitrary: fc.constant(undefined), weight: off }, { arbitrary: arb, weight: on });
}

/** Drops the absent keywords. */
function compact(schema: Record<string, unknown>): GenSchema {
  return Object.fromEntries(Object.entries(schema).filter(([, v]) => v !== undefined)) as GenSchema;
}

/** Patterns of a small grammar, anchored or searched (the safety check decides nothing here). */
export function rawPatternArb(maxParts: number): fc.Arbitrary<string> {
  return fc
    .tuple(
      fc.boolean(),
      fc.array(fc.tuple(fc.constantFrom(...ATOMS), fc.constantFrom(...QUANTIFIERS)), {
        minLength: 1,
        maxLength: maxParts,
      }),
      fc.boolean(),
    )
    .map(([start, parts, end]) => `${start ? "^" : ""}${parts.map(([atom, q]) => atom + q).join("")}${end ? "$" : ""}`);
}

/** Patterns of that grammar that pass the safety check. */
export const patternArb = rawPatternArb(4).filter((pattern) => patternRisk(pattern) === null);

const textArb = fc.array(fc.constantFrom(...ALPHABET), { maxLength: 6 }).map((chars) => chars.join(""));

const stringSchema = fc
  .record({
    minLength: maybe(fc.nat(3)),
    maxLength: maybe(fc.nat(5)),
    pattern: maybe(patternArb),
    enum: maybe(fc.uniqueArray(textArb, { minLength: 1, maxLength: 4 }), 1, 4),
    const: maybe(textArb, 1, 6),
  })
  .map((s) => {
    const maxLength = s.pattern !== undefined && s.maxLength === undefined ? 6 : s.maxLength;
    const [minLength, max] =
      s.minLength !== undefined && maxLength !== undefined && s.minLength > maxLength
        ? [maxLength, s.minLength]
        : [s.minLength, maxLength];
    return compact({ type: "string", ...s, minLength, maxLength: max });
  });

function numericSchema(type: "integer" | "number"): fc.Arbitrary<GenSchema> {
  const fractions = fc.constantFrom(-1.5, 0.5, 2.5, 0.25);
  const bound = fc.oneof(
    { arbitrary: fc.integer({ min: -3, max: 3 }), weight: 3 },
    { arbitrary: fractions, weight: 1 },
  );
  const member =
    type === "integer" ? fc.integer({ min: -3, max: 3 }) : fc.oneof(fc.integer({ min: -3, max: 3 }), fractions);
  return fc
    .record({
      minimum: maybe(bound),
      maximum: maybe(bound),
      exclusiveMinimum: maybe(bound, 1, 2),
      exclusiveMaximum: maybe(bound, 1, 2),
      enum: maybe(fc.uniqueArray(member, { minLength: 1, maxLength: 4, comparator: "SameValueZero" }), 1, 4),
      const: maybe(member, 1, 6),
    })
    .map((s) => compact({ type, ...s }));
}

const booleanSchema = fc
  .record({ enum: maybe(fc.shuffledSubarray([true, false], { minLength: 1 })), const: maybe(fc.boolean(), 1, 3) })
  .map((s) => compact({ type: "boolean", ...s }));
const nullSchema = fc.record({ const: maybe(fc.constant(null), 1, 3) }).map((s) => compact({ type: "null", ...s }));
const leafSchema = fc.oneof(stringSchema, numericSchema("integer"), numericSchema("number"), booleanSchema, nullSchema);

/** Schemas of the subset up to `depth` container levels. */
export function schemaArb(depth: number): fc.Arbitrary<GenSchema> {
  if (depth === 0) return leafSchema;
  const child = schemaArb(depth - 1);
  const object = fc.uniqueArray(fc.constantFrom(...NAMES), { maxLength: 3 }).chain((names) =>
    fc
      .tuple(fc.tuple(...names.map(() => child)), fc.subarray(names), fc.boolean())
      .map(([children, required, explicit]) =>
        compact({
          type: "object",
          properties: Object.fromEntries(names.map((name, i) => [name, children[i]])),
          required: required.length > 0 ? required : undefined,
          additionalProperties: explicit ? false : undefined,
        }),
      ),
  );
  const array = fc.tuple(child, fc.nat(3), maybe(fc.nat(3))).map(([items, maxItems, minItems]) =>
    compact({
      type: "array",
      items,
      maxItems,
      minItems: minItems === undefined ? undefined : Math.min(minItems, maxItems),
    }),
  );
  return fc.oneof(
    { arbitrary: leafSchema, weight: 2 },
    { arbitrary: object, weight: 2 },
    { arbitrary: array, weight: 1 },
  );
}

/** A JSON number text: integral values also as floats (`2.0`, `2e0`), and `-0` forms. */
function numberText(value: number, form: number): string {
  if (!Number.isInteger(value)) return String(value);
  if (form === 1) return `${value}.0`;
  if (form === 2) return `${value}e0`;
  if (form === 3 && value === 0) return "-0.0";
  return String(value);
}

function numericDocs(schema: GenSchema): fc.Arbitrary<string> {
  const anchors = [
    0,
    1,
    -1,
    ...["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]
      .map((k) => schema[k])
      .filter((v): v is number => typeof v === "number"),
  ];
  const near = anchors.flatMap((b) => [
    b,
    Math.floor(b) - 1,
    Math.floor(b),
    Math.ceil(b),
    Math.ceil(b) + 1,
    b - 0.5,
    b + 0.5,
  ]);
  const literals = [
    ...((schema["enum"] as number[] | undefined) ?? []),
    ...(schema["const"] === undefined ? [] : [schema["const"] as number]),
  ];
  const value = fc.oneof(
    fc.constantFrom(...near),
    fc.integer({ min: -5, max: 5 }),
    ...(literals.length > 0 ? [fc.constantFrom(...literals)] : []),
  );
  return fc.tuple(value, fc.nat(3)).map(([v, form]) => numberText(v, form));
}

function stringDocs(schema: GenSchema): fc.Arbitrary<string> {
  const min = (schema["minLength"] as number | undefined) ?? 0;
  const max = (schema["maxLength"] as number | undefined) ?? 6;
  const lengths = [min - 1, min, min + 1, max - 1, max, max + 1].filter((n) => n >= 0);
  const sized = fc.tuple(fc.constantFrom(...lengths), fc.constantFrom("a", "😀", "1")).map(([n, c]) => c.repeat(n));
  const options = [textArb, sized];
  const literals = [
    ...((schema["enum"] as string[] | undefined) ?? []),
    ...(schema["const"] === undefined ? [] : [schema["const"] as string]),
  ];
  if (literals.length > 0) options.push(fc.constantFrom(...literals));
  if (typeof schema["pattern"] === "string") {
    const matching = fc.stringMatching(new RegExp(schema["pattern"], "u"), { maxLength: 8 });
    options.push(
      matching,
      fc.tuple(matching, textArb, fc.boolean()).map(([m, t, before]) => (before ? t + m : m + t)),
    );
  }
  return fc.oneof(...options).map((s) => JSON.stringify(s));
}

/** JSON texts for a schema: mostly its own shape near its boundaries, sometimes another type. */
export function documentArb(schema: GenSchema): fc.Arbitrary<string> {
  const other = fc.constantFrom("1", "1.0", "-2.5", `"a"`, "true", "null", "[]", "{}");
  return fc.oneof({ arbitrary: shaped(schema), weight: 8 }, { arbitrary: other, weight: 1 });
}

function shaped(schema: GenSchema): fc.Arbitrary<string> {
  switch (schema.type) {
    case "string":
      return stringDocs(schema);
    case "integer":
    case "number":
      return numericDocs(schema);
    case "boolean":
      return fc.constantFrom("true", "false");
    case "null":
      return fc.constant("null");
    case "array": {
      const max = schema["maxItems"] as number;
      const min = (schema["minItems"] as number | undefined) ?? 0;
      const item = documentArb(schema["items"] as GenSchema);
      return fc
        .integer({ min: Math.max(0, min - 1), max: max + 1 })
        .chain((n) => fc.array(item, { minLength: n, maxLength: n }).map((items) => `[${items.join(",")}]`));
    }
    default: {
      const properties = Object.entries(schema["properties"] as Record<string, GenSchema>);
      const members = properties.map(([name, child]) =>
        maybe(documentArb(child), 6, 1).map((text) =>
          text === undefined ? undefined : `${JSON.stringify(name)}:${text}`,
        ),
      );
      const extra = maybe(fc.constantFrom(`"extra":1`, `"A":null`, `"a ":true`), 1, 5);
      return fc
        .tuple(fc.tuple(...members), extra)
        .map(([texts, more]) => `{${[...texts, more].filter((t) => t !== undefined).join(",")}}`);
    }
  }
}
