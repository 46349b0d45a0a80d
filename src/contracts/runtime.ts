import * as z from "../core/zod";
import { httpSchemas } from "./registry";
import { TOOL_NAME_PATTERN } from "./tool-definition";
import { DOCS } from "./docs";

/** A canonical App Facade target: `/app/…`, printable ASCII without spaces. */
export const FacadeTarget = z.deferred(() => z.string().check(z.regex(/^\/app\/[!-~]{1,500}$/)));

/** `PUT …/runtime/facade-targets`: the whole map from facade target to tool name (replaces the old one). */
export const FacadeTargetsRequest = z.deferred(() =>
  z
    .strictObject({
      targets: z
        // A tool name; the consumer's object checks it names a tool of the gate, the Worker's code or the consumer's data.
        .record(FacadeTarget, z.string().check(z.regex(TOOL_NAME_PATTERN)))
        .check(z.refine((targets) => Object.keys(targets).length <= 256, { error: "at most 256 targets" })),
    })
    .register(httpSchemas, { id: "FacadeTargetsRequest" }),
);

/** The stored map and its revision (the `PreparedAction.revision` a commit must still match). */
export const FacadeTargetsView = z.deferred(() =>
  z
    .strictObject({
      targets: z.record(z.string(), z.string()),
      revision: z.int(),
    })
    .register(httpSchemas, { id: "FacadeTargetsView" }),
);

/**
 * One execution envelope v1 (documented by its JSON Schema, fixtures/execution/envelope.v1.schema.json).
 * The body is read by the envelope codec, never by this contract; it is here for the OpenAPI document.
 */
export const RuntimeEnvelopeDoc = z.deferred(() =>
  z
    .record(z.string(), z.unknown())
    .check(
      z.meta({ description: DOCS ? "An execution envelope v1 (`metadata` + `payload`), canonical wire JSON." : "" }),
    )
    .register(httpSchemas, { id: "RuntimeEnvelope" }),
);

/** Parsed facade-target map. */
export type FacadeTargetsRequest = z.infer<typeof FacadeTargetsRequest>;
