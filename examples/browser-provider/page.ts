/**
 * Entry of the example page: reads the gate settings from the URL fragment
 * (`#base=…&consumer=…&provider=…&token=…`) and attaches. The fragment never reaches a server.
 * @module
 */
import { startBrowserProvider, type PageDocument } from "./provider";

// The page's globals, typed structurally (the project compiles without DOM typings).
const { document, location } = globalThis as unknown as {
  document: PageDocument & { getElementById(id: string): { textContent: string | null } | null };
  location: { hash: string; origin: string };
};

const params = new URLSearchParams(location.hash.slice(1));
const status = document.getElementById("status");
const show = (text: string): void => {
  if (status !== null) status.textContent = text;
};

const config = {
  baseUrl: params.get("base") ?? location.origin,
  consumer: params.get("consumer") ?? "",
  token: params.get("token") ?? "",
  providerId: params.get("provider") ?? "",
};
if (config.consumer === "" || config.token === "" || config.providerId === "") {
  show("Set #base=…&consumer=…&provider=…&token=… in the address bar, then reload.");
} else {
  startBrowserProvider(config, document, (outcome) => show(`last observation: ${JSON.stringify(outcome, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v))}`))
    .then(async (attached) => {
      if (!attached.ok) return show(`could not attach: ${attached.problem.detail}`);
      show(`attached as ${config.providerId} (binding ${attached.value.bindingId.toString()})`);
      await attached.value.closed;
      show("detached");
    })
    .catch((error: unknown) => show(`could not attach: ${String(error)}`));
}
