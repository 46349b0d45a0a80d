/**
 * Dynamic client registration's check of what a client asks people to read (RFC 7591 §2): its
 * name, its URIs and contacts, and their language variants (`client_name#ja`). A value holding a
 * bidi control, an invisible, control or other hidden code point (core `text.hiddenKind`) is
 * refused with `invalid_client_metadata` (RFC 7591 §3.2.2): a name such as `Claude` followed by
 * U+202E could reorder the consent page's sentence around it. Look-alike letters depend on their
 * neighbours and are not refused; the consent page shows them marked (./page.ts).
 * @module
 */
import type {
  ClientRegistrationCallbackOptions,
  ClientRegistrationCallbackResult,
} from "@cloudflare/workers-oauth-provider";
import { escapeCodePoint, HIDDEN_KIND_TITLES, hiddenKind } from "../../../core/text";

/** The registration fields a person may be shown (each also with a `#<language tag>` suffix). */
const DISPLAY_FIELDS = [
  "client_name",
  "client_uri",
  "logo_uri",
  "policy_uri",
  "tos_uri",
  "contacts",
  "software_id",
  "software_version",
];

function isDisplayField(name: string): boolean {
  const hash = name.indexOf("#");
  return DISPLAY_FIELDS.includes(hash < 0 ? name : name.slice(0, hash));
}

/** The first hidden code point of a value (a string, or each string of an array), as `U+202E (bidirectional control: …)`. */
function firstHidden(value: unknown): string | null {
  const texts =
    typeof value === "string"
      ? [value]
      : Array.isArray(value)
        ? value.filter((v): v is string => typeof v === "string")
        : [];
  for (const text of texts) {
    for (const ch of text) {
      const cp = ch.codePointAt(0) ?? 0;
      const kind = hiddenKind(cp);
      if (kind !== null) return `${escapeCodePoint(cp)} (${HIDDEN_KIND_TITLES[kind]})`;
    }
  }
  return null;
}

/**
 * The library's registration callback: `undefined` admits the client; a refusal names the field
 * and the code point (escaped), never echoing the value.
 */
export function refuseHiddenDisplayText({
  clientMetadata,
}: Pick<ClientRegistrationCallbackOptions, "clientMetadata">): ClientRegistrationCallbackResult | undefined {
  for (const [name, value] of Object.entries(clientMetadata)) {
    if (!isDisplayField(name)) continue;
    const hidden = firstHidden(value);
    if (hidden !== null) {
      return {
        code: "invalid_client_metadata",
        status: 400,
        description: `${name} holds ${hidden}: the fields a person reads must hold no bidi control, invisible, control or other hidden character.`,
      };
    }
  }
  return undefined;
}
