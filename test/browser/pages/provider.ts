import {
  connectProvider,
  failure,
  inlineResult,
  jsonBytes,
  type BoundEffect,
  type CapabilityObservation,
  type GateOptions,
} from "../../../src/client";

type PageDocument = { title: string; body: { textContent: string; innerText: string } };
const page = globalThis as unknown as { document: PageDocument };
const outcomes: unknown[] = [];

/** Where to attach, and as whom. */
type ProviderConfig = GateOptions & { providerId: string };

/** Answers an invoke of `browser.page.snapshot` with this page's title and text length; nothing for a cancel. */
function answer(bound: BoundEffect): CapabilityObservation | null {
  const effect = bound.effect.effect;
  if (!("invoke" in effect)) return null;
  if (effect.invoke.capability_id !== "browser.page.snapshot") return failure("rejected", "unsupported capability");
  return inlineResult(
    jsonBytes({ title: page.document.title, text_length: page.document.body.innerText.length }),
    "application/json",
  );
}

/** Gives the page known content, attaches it as a provider, and answers the binding id. */
async function attach(config: ProviderConfig): Promise<string> {
  page.document.title = "Provider test page";
  page.document.body.textContent = "Hello from a real browser.";
  const attached = await connectProvider({
    ...config,
    onEffect: answer,
    onOutcome: (outcome) => outcomes.push(outcome),
  });
  return attached.ok ? attached.value.bindingId.toString() : attached.problem.code;
}

/** The gate's answers to the observations sent so far (u64 values as decimal text). */
function seen(): string {
  return JSON.stringify(outcomes, (_key, value: unknown) => (typeof value === "bigint" ? value.toString() : value));
}

Object.assign(globalThis, { toolgateAttach: attach, toolgateOutcomes: seen });
