import * as z from "../core/zod";
import { httpSchemas } from "./registry";
import { ShadowRules, ToolDefinition } from "./tool-definition";
import { DOCS } from "./docs";

/**
 * Policies in shadow and replay (docs/approvals.md, "Policies in shadow"): what the admin reads of
 * a tool's shadow rules, and a candidate definition replayed against the calls still held.
 * @module
 */

/** The calls a replay looks at, at most (newest first). */
export const REPLAY_MAX_CALLS = 500;
/** The calls a replay looks at when the request names no limit. */
export const REPLAY_DEFAULT_CALLS = 200;
/** The differing calls a replay lists, at most (its counts cover them all). */
export const REPLAY_LISTED = 100;

/** What a tool's rules decided, or would have: refuse (NOT_FOUND), a human decides, or run. */
const Decision = z.deferred(() => z.enum(["refused", "needs_approval", "allowed"]));

const Counts = z.deferred(() =>
  z.strictObject({
    evaluated: z.int().check(z.describe(DOCS ? "Calls whose rules were evaluated under this shadow revision." : "")),
    agreed: z.int(),
    disagreed: z.strictObject({
      authorize: z.int().check(z.describe(DOCS ? "One allowed the call, the other refused it." : "")),
      approval: z.int().check(z.describe(DOCS ? "Both allowed it; one sent it to a human, the other did not." : "")),
    }),
  }),
);

/** One disagreement between the shadow and the enforced rules. */
const Disagreement = z.deferred(() =>
  z.strictObject({
    tool: z.string(),
    revision: z.string().check(z.describe(DOCS ? "The shadow revision it was evaluated under." : "")),
    at: z.int(),
    kind: z.enum(["authorize", "approval"]),
    enforced: Decision,
    shadow: Decision,
    subject_id: z.string(),
    call_id: z.string(),
    request_sha256: z
      .string()
      .check(z.describe(DOCS ? "The call's request digest, as its audit record's binding names it." : "")),
    arguments: z
      .optional(z.unknown())
      .check(z.describe(DOCS ? "Only when the consumer keeps arguments (`audit_arguments: full`)." : "")),
  }),
);

/** `GET …/tools/{name}/shadow`. */
export const ToolShadowView = z.deferred(() =>
  z
    .strictObject({
      name: z.string(),
      shadow: z
        .nullable(ShadowRules)
        .check(z.describe(DOCS ? "The current definition's shadow rules; null: none." : "")),
      revision: z.nullable(z.string()),
      counts: z
        .nullable(Counts)
        .check(z.describe(DOCS ? "The counts of the current shadow revision; null: no shadow." : "")),
      disagreements: z
        .array(Disagreement)
        .check(z.describe(DOCS ? "The newest kept disagreements (any revision), newest first." : "")),
    })
    .register(httpSchemas, { id: "ToolShadowView" }),
);

/** `POST …/tools/{name}/replay`. */
export const ToolReplayRequest = z.deferred(() =>
  z
    .strictObject({
      // The candidate, checked as a PUT would check it; only its enforced rules are replayed.
      definition: ToolDefinition,
      limit: z
        .optional(z.int().check(z.gte(1), z.lte(REPLAY_MAX_CALLS)))
        .check(
          z.describe(
            DOCS
              ? `The newest calls of the tool to replay, at most ${REPLAY_MAX_CALLS} (${REPLAY_DEFAULT_CALLS} when absent).`
              : "",
          ),
        ),
    })
    .register(httpSchemas, { id: "ToolReplayRequest" }),
);

const Tally = z.deferred(() => z.strictObject({ refused: z.int(), needs_approval: z.int(), allowed: z.int() }));

/** `POST …/tools/{name}/replay`: what the candidate would have decided against what happened. */
export const ToolReplayView = z.deferred(() =>
  z
    .strictObject({
      name: z.string(),
      since: z.int().check(z.describe(DOCS ? "The start of the retention window looked at (Unix seconds)." : "")),
      calls: z.int().check(z.describe(DOCS ? "The tool's calls looked at (newest first, at most the limit)." : "")),
      replayed: z.int(),
      without_arguments: z
        .int()
        .check(
          z.describe(
            DOCS
              ? "Calls whose record keeps only the arguments' digest (`audit_arguments: digest`): not replayed."
              : "",
          ),
        ),
      before_policy: z
        .int()
        .check(z.describe(DOCS ? "Calls the rules never decided (invalid arguments, no idempotency key…)." : "")),
      happened: Tally,
      candidate: Tally,
      differing: z.int(),
      differences: z.array(
        z.strictObject({
          seq: z.int().check(z.describe(DOCS ? "The call's audit entry." : "")),
          at: z.int(),
          call_id: z.string(),
          subject_id: z.string(),
          request_sha256: z.string(),
          happened: Decision,
          candidate: Decision,
        }),
      ),
    })
    .register(httpSchemas, { id: "ToolReplayView" }),
);

/** The parsed replay request. */
export type ToolReplayRequest = z.output<typeof ToolReplayRequest>;
