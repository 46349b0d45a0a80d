/**
 * The fetch of consumer-defined targets (tools as data, MCP servers, webhook endpoints): every
 * request's URL passes the target rule (`checkUrl`, the one rule definitions pass) again right
 * before it is sent, so a target stored before the rule, or under a policy since withdrawn,
 * never reaches a private, loopback or link-local address. A refused request is not sent: the
 * fetch throws {@link TargetRefused} (callers answer it as "nothing was sent") and one line
 * tells the operator why; the model only ever sees the catalog's TOOL_ERROR.
 * @module
 */
import { checkUrl, type TargetPolicy } from "../features/tools/build";

/** A request refused before it was sent: its URL breaks the target rule. */
export class TargetRefused extends Error {
  override readonly name = "TargetRefused";
}

/** `fetch` wrapped with the target rule under `policy`. */
export function targetFetch(
  policy: TargetPolicy,
  fetch: (request: Request) => Promise<Response>,
): (request: Request) => Promise<Response> {
  return async (request) => {
    const refused = checkUrl(request.url, "", policy);
    if (refused !== null) {
      // The operator's line: the host only (a target's path or query may carry a token).
      console.warn(`toolgate: outbound request to ${new URL(request.url).host} refused: ${refused.message}`);
      throw new TargetRefused(refused.message);
    }
    return fetch(request);
  };
}
