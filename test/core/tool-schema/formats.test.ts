/**
 * What the subset accepts of the schemas zod and the MCP SDK write: `format` (email, uri, uuid,
 * date, date-time: validated, not annotated), `anyOf`, lists of types (nullable, unions of
 * scalars), the root's `$schema` and `default`. The verdicts of uuid, date, date-time, anyOf and
 * type lists are checked against @cfworker/json-schema (an independent validator, formats on);
 * email and uri cases come from their RFCs (RFC 5322 dot-atoms, RFC 3986 absolute URIs).
 */
import { Validator } from "@cfworker/json-schema";
import { describe, expect, it } from "vitest";
import { readJson, type Json } from "../../../src/core/json";
import { compileSchema } from "../../../src/core/tool-schema";

function read(text: string): Json {
  const parsed = readJson(text);
  if (!parsed.ok) throw new Error(`not JSON: ${text}`);
  return parsed.value;
}

function verdicts(schemaText: string, values: readonly string[]): Array<[string, string | null]> {
  const compiled = compileSchema(read(schemaText));
  if (!compiled.ok) throw new Error(`refused: ${compiled.error.pointer} ${compiled.error.message}`);
  return values.map((v) => [v, compiled.value.explain(read(v))]);
}

/** cfworker's verdicts of the same values (true: valid). */
function theirs(schemaText: string, values: readonly string[]): boolean[] {
  const validator = new Validator(JSON.parse(schemaText) as never, "2020-12");
  return values.map((v) => validator.validate(JSON.parse(v)).valid);
}

describe("string formats", () => {
  it("email: a dot-atom local part @ a domain of two or more labels", () => {
    const values = [
      `"a@b.co"`,
      `"first.last+tag@mail.example.org"`,
      `"o'brien!#$%&*/=?^_{|}~-@x-y.example"`,
      `"@example.com"`,
      `"a@example"`,
      `".a@example.com"`,
      `"a..b@example.com"`,
      `"a@-x.example"`,
      `"a@x_y.example"`,
      `"\\"quoted\\"@example.com"`,
      `"a b@example.com"`,
      `"${"l".repeat(65)}@example.com"`,
    ];
    expect(verdicts(`{"type":"string","format":"email"}`, values)).toEqual([
      [values[0], null],
      [values[1], null],
      [values[2], null],
      [values[3], "(root): format"],
      [values[4], "(root): format"],
      [values[5], "(root): format"],
      [values[6], "(root): format"],
      [values[7], "(root): format"],
      [values[8], "(root): format"],
      [values[9], "(root): format"],
      [values[10], "(root): format"],
      [values[11], "(root): format"],
    ]);
  });

  it("uri: a scheme, a colon, only RFC 3986 characters and whole percent escapes", () => {
    const values = [
      `"https://example.com/a?b=1#c"`,
      `"urn:isbn:0451450523"`,
      `"mailto:a@b.co"`,
      `"http://[::1]:8080/%7Euser"`,
      `"/relative/path"`,
      `"1http://x"`,
      `"http://exa mple.com"`,
      `"http://x/%zz"`,
      `"http://x/%4"`,
      `"http://x/é"`,
    ];
    expect(verdicts(`{"type":"string","format":"uri"}`, values).map(([, v]) => v)).toEqual([
      null,
      null,
      null,
      null,
      "(root): format",
      "(root): format",
      "(root): format",
      "(root): format",
      "(root): format",
      "(root): format",
    ]);
  });

  it("uuid, date and date-time agree with @cfworker/json-schema", () => {
    const cases: Array<[string, string[]]> = [
      [
        `{"type":"string","format":"uuid"}`,
        [
          `"123e4567-e89b-42d3-a456-426614174000"`,
          `"123E4567-E89B-42D3-A456-426614174000"`,
          `"123e4567e89b42d3a456426614174000"`,
          `"123e4567-e89b-42d3-a456-42661417400g"`,
          `"123e4567-e89b-42d3-a456-4266141740000"`,
        ],
      ],
      [
        `{"type":"string","format":"date"}`,
        [`"2024-02-29"`, `"2023-02-29"`, `"1900-02-29"`, `"2000-02-29"`, `"2026-12-31"`, `"2026-13-01"`, `"2026-1-01"`],
      ],
      [
        `{"type":"string","format":"date-time"}`,
        [
          `"2026-12-06T15:58:00Z"`,
          `"2026-12-06t15:58:00.123z"`,
          `"2026-12-06T15:58:00+01:00"`,
          `"2026-12-06T24:00:00Z"`,
          `"2026-12-06T15:58:00"`,
          `"2026-12-06 15:58:00Z"`,
          `"2026-12-06T15:58:00.Z"`,
          `"2026-02-30T00:00:00Z"`,
        ],
      ],
    ];
    for (const [schema, values] of cases) {
      expect(verdicts(schema, values).map(([, v]) => v === null)).toEqual(theirs(schema, values));
    }
    expect(verdicts(cases[2]?.[0] ?? "", cases[2]?.[1] ?? []).map(([, v]) => v === null)).toEqual([
      true,
      true,
      true,
      false,
      false,
      true,
      false,
      false,
    ]);
  });
});

describe("anyOf, lists of types, $schema and default", () => {
  const schema = `{
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "properties": {
      "note": { "type": ["string", "null"], "maxLength": 3 },
      "tag": { "type": ["string", "number"], "minLength": 2, "minimum": 10 },
      "pick": { "anyOf": [{ "type": "string", "format": "email" }, { "type": "integer", "maximum": 5 }], "description": "a union" },
      "mode": { "type": "string", "enum": ["a", "b"], "default": "a" }
    },
    "required": ["note"],
    "additionalProperties": false
  }`;
  const values = [
    `{"note":null}`,
    `{"note":"abc","tag":"xy","pick":"a@b.co","mode":"b"}`,
    `{"note":"abcd"}`,
    `{"note":"a","tag":12}`,
    `{"note":"a","tag":9}`,
    `{"note":"a","tag":"x"}`,
    `{"note":"a","tag":true}`,
    `{"note":"a","pick":5}`,
    `{"note":"a","pick":6}`,
    `{"note":"a","pick":"nope"}`,
    `{"tag":"xy"}`,
  ];

  it("validates as the draft says, pointer and keyword exact", () => {
    expect(verdicts(schema, values).map(([, v]) => v)).toEqual([
      null,
      null,
      "/note: type",
      null,
      "/tag: type",
      "/tag: type",
      "/tag: type",
      null,
      "/pick: anyOf",
      "/pick: anyOf",
      "/note: required",
    ]);
  });

  it("agrees with @cfworker/json-schema on every value", () => {
    const normalized = schema.replace(
      `"http://json-schema.org/draft-07/schema#"`,
      `"https://json-schema.org/draft/2020-12/schema"`,
    );
    expect(verdicts(schema, values).map(([, v]) => v === null)).toEqual(theirs(normalized, values));
  });
});
