/**
 * Why an external tool's run failed, for operators only: the model sees the catalog's
 * TOOL_ERROR (or OUTCOME_UNKNOWN) and nothing else, while the audit record of the call, one log
 * line and the admin's read of the call keep this cause. Its `detail` is bounded and shows
 * hidden characters; a URL in it keeps its origin and path only (a query or fragment may carry
 * a token), and a bearer or `tg_` token is masked.
 * @module
 */
import { visibleText } from "../../core/text/visible";

/** What kind of failure it was. */
export const CAUSE_KINDS = ["connect", "status", "timeout", "contract", "refused", "thrown"] as const;

/** The operator's cause of a failed run. */
export interface ToolErrorCause {
  /**
   * `connect`: no answer (connection refused or lost); `status`: the target answered a failure
   * (an HTTP status, an MCP error); `timeout`: the tool's deadline passed; `contract`: the
   * answer is not what the tool's contract says; `refused`: nothing was sent (the target rule,
   * no signing key, a secret that cannot be opened); `thrown`: a code tool threw.
   */
  readonly kind: (typeof CAUSE_KINDS)[number];
  /** The target's HTTP status, with `status`. */
  readonly status?: number;
  readonly detail: string;
}

/** Longest `detail` kept, in code units (then `…`). */
export const MAX_CAUSE_DETAIL = 300;

const URLS = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi;
const TOKENS = /\b(bearer\s+)[^\s"',;]+|\btg_[a-z]+_[A-Za-z0-9_-]+/gi;

/** A URL without its query, fragment and user info (a token may hide in any of them). */
function bareUrl(text: string): string {
  try {
    const url = new URL(text);
    return `${url.origin}${url.pathname}`;
  } catch {
    return "[url]";
  }
}

/** `text` as a cause's detail: URLs bared, tokens masked, hidden characters shown, bounded. */
export function causeDetail(text: string): string {
  const clean = text.replace(URLS, bareUrl).replace(TOKENS, (match, bearer?: string) => `${bearer ?? ""}[redacted]`);
  const shown = visibleText(clean);
  return shown.length > MAX_CAUSE_DETAIL ? `${shown.slice(0, MAX_CAUSE_DETAIL)}…` : shown;
}

/** A cause of `kind` with its detail made safe ({@link causeDetail}). */
export function causeOf(kind: ToolErrorCause["kind"], detail: string, status?: number): ToolErrorCause {
  return status === undefined ? { kind, detail: causeDetail(detail) } : { kind, status, detail: causeDetail(detail) };
}

/** A thrown value in words: `Name: message` of an Error, else what it is. */
export function thrownText(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : `threw a non-Error value (${typeof error})`;
}
