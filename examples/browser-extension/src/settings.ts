/**
 * The extension's settings: where the gate is and which provider this browser profile attaches
 * as. Kept in `chrome.storage.local` under {@link SETTINGS_KEY}; the credential is never shown
 * again once saved and never written to a log or a status line.
 * @module
 */

/** The storage key of the settings (`chrome.storage.local`). */
export const SETTINGS_KEY = "settings";

/** The storage key of the provider's status (`chrome.storage.session`, read by the options page). */
export const STATUS_KEY = "status";

/** Where to attach, and as whom. */
export interface Settings {
  /** The gate's origin, `http://` or `https://` (the socket uses `ws://` or `wss://`). */
  readonly gateUrl: string;
  readonly consumer: string;
  /** The registered provider this browser profile attaches as (the credential's subject). */
  readonly providerId: string;
  /** A `tg_provider_…` credential. */
  readonly credential: string;
}

/** What the service worker reports about its one attachment. */
export interface ProviderStatus {
  readonly state: "unconfigured" | "connecting" | "attached" | "waiting";
  /** A line for people; never holds the credential. */
  readonly detail: string;
}

/** The form's text fields, as typed. */
export type SettingsInput = { readonly [K in keyof Settings]: string };

/** A field the form must correct, and why. */
export interface SettingsError {
  readonly field: keyof Settings;
  readonly message: string;
}

/** An `http:` or `https:` origin typed as text (a trailing slash allowed), or `null`. */
function originOf(text: string): URL | null {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return null;
  }
  const plain =
    url.pathname === "/" && url.search === "" && url.hash === "" && url.username === "" && url.password === "";
  return plain && (url.protocol === "http:" || url.protocol === "https:") ? url : null;
}

/** Checks typed settings; answers them trimmed, or the first field to correct. */
export function checkSettings(
  input: SettingsInput,
): { ok: true; value: Settings } | { ok: false; error: SettingsError } {
  const url = originOf(input.gateUrl);
  if (url === null) {
    return {
      ok: false,
      error: { field: "gateUrl", message: "the gate's origin, such as https://gate.example or http://127.0.0.1:8787" },
    };
  }
  const consumer = input.consumer.trim();
  const providerId = input.providerId.trim();
  const credential = input.credential.trim();
  if (consumer === "") return { ok: false, error: { field: "consumer", message: "the consumer's name" } };
  if (providerId === "")
    return { ok: false, error: { field: "providerId", message: "the provider's id, the subject of its credential" } };
  if (!/^\S+$/.test(credential))
    return { ok: false, error: { field: "credential", message: "the provider credential (tg_provider_…)" } };
  return { ok: true, value: { gateUrl: url.origin, consumer, providerId, credential } };
}

/** Match patterns of the sites typed, one origin a line; or the first line that is not an origin. */
export function sitePatterns(text: string): { ok: true; patterns: string[] } | { ok: false; line: string } {
  const patterns: string[] = [];
  for (const line of text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "")) {
    const url = originOf(line);
    if (url === null) return { ok: false, line };
    // Match patterns ignore the port: the site's pages on any port.
    patterns.push(`${url.protocol}//${url.hostname}/*`);
  }
  return { ok: true, patterns };
}

/** Reads stored settings; anything else (nothing stored, an older shape) is `null`. */
export function storedSettings(value: unknown): Settings | null {
  if (typeof value !== "object" || value === null) return null;
  const v = value as Record<string, unknown>;
  const { gateUrl, consumer, providerId, credential } = v;
  if (
    typeof gateUrl !== "string" ||
    typeof consumer !== "string" ||
    typeof providerId !== "string" ||
    typeof credential !== "string"
  )
    return null;
  const checked = checkSettings({ gateUrl, consumer, providerId, credential });
  return checked.ok ? checked.value : null;
}

/** Reads a stored status; anything else is `null`. */
export function storedStatus(value: unknown): ProviderStatus | null {
  if (typeof value !== "object" || value === null) return null;
  const { state, detail } = value as Record<string, unknown>;
  if (typeof detail !== "string") return null;
  if (state !== "unconfigured" && state !== "connecting" && state !== "attached" && state !== "waiting") return null;
  return { state, detail };
}
