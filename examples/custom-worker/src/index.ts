/**
 * A Worker that embeds toolgate with one tool of its own, written as code: `word_count`, a read
 * that counts the words of a text. Every toolgate route works as in the toolgate Worker; a
 * consumer enables the tool by listing `word_count` in its `tools`.
 * @module
 */
import { createGate, defineTool } from "toolgate/worker";

/** The revision of what this Worker's tool produces; a change of behaviour gets a new one. */
const PRODUCER_REVISION = "word-count-v1";

/** The current second as RFC 3339 UTC text (`YYYY-MM-DDTHH:MM:SSZ`), as `observed_at` wants it. */
function nowUtcSecond(): string {
  return `${new Date().toISOString().slice(0, 19)}Z`;
}

/** `word_count`: the number of whitespace-separated words of `text`. */
export const wordCount = defineTool({
  name: "word_count",
  description: "Counts the whitespace-separated words of a text.",
  risk: "read",
  arguments: { text: { type: "str", minLength: 1, maxLength: 2000 } },
  output: { words: { type: "int" } },
  maxOutputBytes: 64,
  maxOutputDepth: 1,
  timeoutMs: 100,
  // Revisions bind results, approvals and idempotency records to this exact contract and code.
  inputSchemaRevision: "word-count-input-v1",
  policyRevision: "word-count-policy-v1",
  outputSchemaRevision: "word-count-output-v1",
  effectRevision: "word-count-v1",
  handlerRevision: "word-count-handler-v1",
  producerLabel: "word-count",
  producerRevision: PRODUCER_REVISION,
  // Any caller of the consumer may count words; a tool over owned resources checks the principal here.
  authorize: () => true,
  execution: {
    kind: "in_process",
    // `text` is a string of 1 to 2000 code points here: the gate checked it against the rule.
    handler: ({ text }) => ({
      data: { words: text.split(/\s+/u).filter((word) => word !== "").length },
      producer_revision: PRODUCER_REVISION,
      resource_revision: null,
      observed_at: nowUtcSecond(),
    }),
  },
});

const gate = createGate({ tools: [wordCount] });

/** The Durable Object class named in wrangler.toml. */
export const ConsumerObject = gate.ConsumerObject;

export default { fetch: gate.fetch };
