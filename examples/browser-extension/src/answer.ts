/**
 * Answers the gate's effects: `browser.page.snapshot` on the active tab, read on demand with
 * `chrome.scripting.executeScript` (no content script sits in every page). The tab is readable
 * when the extension holds a host permission for it (loopback pages, origins granted on the
 * options page) or the user clicked the extension's button on it (`activeTab`).
 * @module
 */
import { failure, type BoundEffect, type CapabilityObservation } from "toolgate/capability-provider";
import { chrome } from "./chrome";
import { ACTIVE_TAB_SCOPE, MAX_PAGE_TEXT, PAGE_SNAPSHOT, pageSnapshot, readPage } from "./snapshot";

/** The snapshot of the active tab of the last focused window, or why there is none. */
async function readActiveTab(): Promise<CapabilityObservation> {
  const [tab] = await chrome.tabs.query({ active: true, lastFocusedWindow: true });
  if (tab?.id === undefined) return failure("unavailable", "no active tab");
  let reading;
  try {
    const [frame] = await chrome.scripting.executeScript({
      target: { tabId: tab.id },
      func: readPage,
      args: [MAX_PAGE_TEXT],
    });
    reading = frame?.result;
  } catch {
    // Browser pages, the web store and tabs without a granted permission cannot be read; which
    // one it was (and the tab's address) stays in the browser.
    reading = undefined;
  }
  if (reading === undefined)
    return failure(
      "unavailable",
      "the active tab cannot be read: click the extension's button on it, or allow its site on the options page",
    );
  const snapshot = pageSnapshot(reading);
  const bytes = Array.from(snapshot.bytes);
  return {
    succeeded: {
      result: {
        metadata: {
          byte_len: bytes.length,
          media_type: "application/json",
          truncated: snapshot.truncated,
          redacted_summary: null,
        },
        delivery: { inline: { bytes } },
      },
    },
  };
}

/** One effect's observation: a snapshot for an invoke, nothing for a cancel (a read has nothing to undo). */
export async function answerEffect(bound: BoundEffect): Promise<CapabilityObservation | null> {
  const effect = bound.effect.effect;
  if (!("invoke" in effect)) return null;
  if (effect.invoke.capability_id !== PAGE_SNAPSHOT)
    return failure("rejected", "this provider answers browser.page.snapshot only");
  if (effect.invoke.resource_scope_id !== ACTIVE_TAB_SCOPE)
    return failure("rejected", "this provider reads the active tab only (resource scope tab:active)");
  try {
    return await readActiveTab();
  } catch {
    return failure("execution", "reading the active tab failed");
  }
}
