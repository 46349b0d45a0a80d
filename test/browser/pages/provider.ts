import { startBrowserProvider, type BrowserProviderConfig, type PageDocument } from "../../../examples/browser-provider/provider";

const page = globalThis as unknown as { document: PageDocument & { title: string; body: { textContent: string; innerText: string } } };
const outcomes: unknown[] = [];

/** Gives the page known content, attaches it as a provider, and answers the binding id. */
async function attach(config: BrowserProviderConfig): Promise<string> {
  page.document.title = "Provider test page";
  page.document.body.textContent = "Hello from a real browser.";
  const attached = await startBrowserProvider(config, page.document, (outcome) => outcomes.push(outcome));
  return attached.ok ? attached.value.bindingId.toString() : attached.problem.code;
}

/** The gate's answers to the observations sent so far (u64 values as decimal text). */
function seen(): string {
  return JSON.stringify(outcomes, (_key, value: unknown) => (typeof value === "bigint" ? value.toString() : value));
}

Object.assign(globalThis, { toolgateAttach: attach, toolgateOutcomes: seen });
