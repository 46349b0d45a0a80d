/**
 * A minimal browser provider: attaches to the gate over a WebSocket and answers
 * `browser.page.snapshot` with the page's title and text length (as JSON bytes).
 * @module
 */
import { connectProvider, failure, inlineResult, jsonBytes, type BoundEffect, type CapabilityObservation, type ClientResult, type ProviderConnection } from "../../src/client";

/** The capability this provider answers. */
export const PAGE_SNAPSHOT = "browser.page.snapshot";

/** Where to attach, and as whom. */
export interface BrowserProviderConfig {
  baseUrl: string;
  consumer: string;
  /** A `tg_provider_…` credential whose subject is `providerId`. */
  token: string;
  providerId: string;
}

/** The part of a DOM `Document` the snapshot reads (structural, so no DOM typings are needed). */
export interface PageDocument {
  readonly title: string;
  readonly body: { readonly innerText: string } | null;
}

/** What the snapshot reports about a document. */
export function pageSnapshot(doc: PageDocument): { title: string; text_length: number } {
  return { title: doc.title, text_length: (doc.body?.innerText ?? "").length };
}

/** Answers one effect: a snapshot for an invoke of `browser.page.snapshot`; nothing for a cancel. */
export function answerEffect(doc: PageDocument, bound: BoundEffect): CapabilityObservation | null {
  const effect = bound.effect.effect;
  if (!("invoke" in effect)) return null;
  if (effect.invoke.capability_id !== PAGE_SNAPSHOT) return failure("rejected", "unsupported capability");
  return inlineResult(jsonBytes(pageSnapshot(doc)), "application/json");
}

/** Attaches this page as a provider; `onOutcome` sees the gate's answer to each observation. */
export function startBrowserProvider(config: BrowserProviderConfig, doc: PageDocument, onOutcome?: (outcome: unknown) => void): Promise<ClientResult<ProviderConnection>> {
  return connectProvider({ ...config, onEffect: (bound) => answerEffect(doc, bound), ...(onOutcome === undefined ? {} : { onOutcome }) });
}
