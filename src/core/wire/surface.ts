/**
 * `ConversationSurface`: the one canonical string that names where a conversation lives.
 *
 * Grammar (version `cs1`, ID segments in unpadded URL-safe base64 of UTF-8 text):
 * `cs1:cp:<user>` client personal, `cs1:cg:<group>` client group,
 * `cs1:mp:<provider>:<account>:<conversation>[:<lane>]` messaging personal, and `cs1:mg:…` the
 * same for a messaging group. A surface is accepted only when it re-encodes to the same text, so
 * padded base64, stray characters, upper-case providers and blank or space-edged IDs all fail.
 * @module
 */

import { decodeBase64Url, encodeBase64Url } from "./base64url";
import { hasEdgeWhiteSpace, isBlank } from "./rust-text";

/** A surface broken into its parts. */
export type SurfaceParts =
  | { kind: "client_personal"; userId: string }
  | { kind: "client_group"; groupId: string }
  | {
      kind: "messaging_personal" | "messaging_group";
      provider: string;
      account: string;
      conversation: string;
      lane: string | null;
    };

const PROVIDER = /^[a-z][a-z0-9_]*$/;
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const toBytes = new TextEncoder();

function segment(text: string): string | null {
  const bytes = decodeBase64Url(text);
  if (bytes === null) return null;
  let value: string;
  try {
    value = utf8.decode(bytes);
  } catch {
    return null;
  }
  // An ID segment must be a usable identifier: non-blank and without edge white space.
  if (isBlank(value) || hasEdgeWhiteSpace(value)) return null;
  return value;
}

function checkedSegment(value: string, what: string): string {
  if (isBlank(value) || hasEdgeWhiteSpace(value))
    throw new RangeError(`surface ${what} must be non-blank without edge white space`);
  return encodeBase64Url(toBytes.encode(value));
}

/** Formats surface parts as the canonical `cs1` string; throws on parts no surface can hold. */
export function formatSurface(parts: SurfaceParts): string {
  switch (parts.kind) {
    case "client_personal":
      return `cs1:cp:${checkedSegment(parts.userId, "user id")}`;
    case "client_group":
      return `cs1:cg:${checkedSegment(parts.groupId, "group id")}`;
    default: {
      const provider = parts.provider.toLowerCase();
      if (!PROVIDER.test(provider)) throw new RangeError("surface provider must match [a-z][a-z0-9_]*");
      const tag = parts.kind === "messaging_personal" ? "mp" : "mg";
      const lane = parts.lane === null ? "" : `:${checkedSegment(parts.lane, "lane")}`;
      return `cs1:${tag}:${provider}:${checkedSegment(parts.account, "account")}:${checkedSegment(parts.conversation, "conversation")}${lane}`;
    }
  }
}

/** Parses a canonical surface string, or returns null when it is not one. */
export function parseSurface(text: string): SurfaceParts | null {
  const fields = text.split(":");
  if (fields[0] !== "cs1") return null;
  let parts: SurfaceParts | null = null;
  const [, tag, a, b, c, d] = fields;
  if ((tag === "cp" || tag === "cg") && fields.length === 3 && a !== undefined) {
    const id = segment(a);
    if (id === null) return null;
    parts = tag === "cp" ? { kind: "client_personal", userId: id } : { kind: "client_group", groupId: id };
  } else if (
    (tag === "mp" || tag === "mg") &&
    (fields.length === 5 || fields.length === 6) &&
    a !== undefined &&
    b !== undefined &&
    c !== undefined
  ) {
    const provider = a.toLowerCase();
    const account = segment(b);
    const conversation = segment(c);
    const lane = d === undefined ? null : segment(d);
    if (!PROVIDER.test(provider) || account === null || conversation === null || (d !== undefined && lane === null))
      return null;
    parts = { kind: tag === "mp" ? "messaging_personal" : "messaging_group", provider, account, conversation, lane };
  }
  // Canonical means the parts print back to exactly the text we were given.
  return parts !== null && formatSurface(parts) === text ? parts : null;
}

/** `ConversationSurface::client_personal(user_id)`, e.g. `cs1:cp:dXNlci0x` for `user-1`. */
export function clientPersonalSurface(userId: string): string {
  return formatSurface({ kind: "client_personal", userId });
}
