import * as z from "../core/zod";
import { DECLARATION_FORMATS } from "../core/adapters/declarations";
import { ToolVersionView } from "./tool-definition";
import { httpSchemas } from "./registry";
import { DOCS } from "./docs";

/**
 * The answers of the tool routes: the catalog pages, one tool's history, the secret names.
 * @module
 */

const NextCursor = z.deferred(() =>
  z.nullable(z.string()).check(z.describe(DOCS ? "Where the next page starts; null on the last page." : "")),
);

/** A data-defined tool's state: `enabled` or `disabled` for the consumer, or `deleted` (its definition withdrawn, history kept). */
const DefinedState = z.deferred(() =>
  z
    .enum(["enabled", "disabled", "deleted"])
    .check(
      z.describe(
        DOCS
          ? "`enabled`: the consumer's `tools` lists it; `disabled`: defined, not listed; `deleted`: its definition was withdrawn (DELETE), its history kept."
          : "",
      ),
    ),
);

/** A data-defined tool in the admin's list. */
const DefinedTool = z.deferred(() =>
  z.strictObject({ name: z.string(), current_version: z.int(), state: DefinedState }),
);

/** An object JSON Schema, as a declaration carries a tool's input schema. */
const ObjectSchema = z.deferred(() => z.looseObject({ type: z.literal("object") }));

/** One tool as a model's declaration, in the page's `format` (docs/tools.md). */
const Declaration = z.deferred(() =>
  z.union([
    z
      .strictObject({
        type: z.literal("function"),
        name: z.string(),
        description: z.string(),
        parameters: ObjectSchema,
        strict: z.literal(true),
      })
      .check(z.describe(DOCS ? "openai" : "")),
    z
      .strictObject({ name: z.string(), description: z.string(), input_schema: ObjectSchema })
      .check(z.describe(DOCS ? "anthropic, json-schema" : "")),
    z
      .strictObject({ name: z.string(), description: z.string(), parametersJsonSchema: ObjectSchema })
      .check(z.describe(DOCS ? "gemini" : "")),
  ]),
);

/** `GET …/tools`: the admin's page, or a page of declarations. */
export const ToolList = z.deferred(() =>
  z
    .union([
      z.strictObject({
        enabled: z
          .array(z.string())
          .check(z.describe(DOCS ? "The consumer's enabled tool names, whole on every page." : "")),
        defined: z.array(DefinedTool),
        next_cursor: NextCursor,
      }),
      z.strictObject({ format: z.enum(DECLARATION_FORMATS), tools: z.array(Declaration), next_cursor: NextCursor }),
    ])
    .register(httpSchemas, { id: "ToolList" }),
);

/** `GET …/tools/{name}`: the current version and the history, newest first. */
export const ToolDetails = z.deferred(() =>
  z
    .strictObject({
      name: z.string(),
      current_version: z.int(),
      state: DefinedState,
      history: z.array(ToolVersionView),
    })
    .register(httpSchemas, { id: "ToolDetails" }),
);

/** `GET …/secrets`: names only, never a value. */
export const SecretList = z.deferred(() =>
  z.strictObject({ secrets: z.array(z.string()), next_cursor: NextCursor }).register(httpSchemas, { id: "SecretList" }),
);

/** A tool's state for the consumer: `enabled` (its configuration's `tools` lists it) or `disabled`. */
export const TOOL_STATES = ["enabled", "disabled"] as const;

/** A tool's state. */
export type ToolState = (typeof TOOL_STATES)[number];

/** `PATCH …/tools/{name}`: a JSON Merge Patch of the tool's state, the one member it changes. */
export const ToolStatePatch = z.deferred(() =>
  z
    .strictObject({
      state: z
        .enum(TOOL_STATES)
        .check(
          z.describe(
            DOCS
              ? "`enabled` adds the tool to the consumer's `tools`, `disabled` takes it out; nothing else changes."
              : "",
          ),
        ),
    })
    .register(httpSchemas, { id: "ToolStatePatch" }),
);

/** The answer of `PATCH …/tools/{name}`. */
export const ToolStateView = z.deferred(() =>
  z.strictObject({ name: z.string(), state: z.enum(TOOL_STATES) }).register(httpSchemas, { id: "ToolStateView" }),
);
