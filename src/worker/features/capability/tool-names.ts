/**
 * Capability ids as tool names. A capability id (`browser.page.snapshot`) may hold `.`, `:`
 * and `/` and run to 256 bytes; a tool name is `^[a-zA-Z][a-zA-Z0-9_-]{0,63}$` (the gate's
 * pattern, and what MCP clients and model APIs accept). The mapping replaces each `.` with `_`
 * (`browser_page_snapshot`); an id that still does not match the pattern (a `:` or `/`, a
 * leading digit, more than 64 characters) has no tool. A name is never ambiguous: a name a
 * defined tool has stays that tool's, and a name two offered capability ids map to
 * (`a.b` and `a_b`) is neither's.
 * @module
 */
import { TOOL_NAME_PATTERN } from "../../../contracts/tool-definition";
import type { CapabilityProviderDescriptor } from "../../../core/capability";

/** The tool name of a capability id, or `null` when it has none. */
export function capabilityToolName(capabilityId: string): string | null {
  const name = capabilityId.replaceAll(".", "_");
  return TOOL_NAME_PATTERN.test(name) ? name : null;
}

/**
 * The capability tools of the registered providers, by tool name: each name one capability id
 * maps to, with no defined tool of that name (`defined`) and no other capability id mapping to it.
 */
export function capabilityToolNames(
  providers: readonly CapabilityProviderDescriptor[],
  defined: (name: string) => boolean,
): Map<string, string> {
  const ids = new Map<string, Set<string>>();
  for (const provider of providers) {
    for (const capability of provider.capabilities) {
      const name = capabilityToolName(capability.id);
      if (name === null || defined(name)) continue;
      const set = ids.get(name) ?? new Set<string>();
      set.add(capability.id);
      ids.set(name, set);
    }
  }
  const names = new Map<string, string>();
  for (const [name, set] of ids) {
    const [only, ...more] = set;
    if (only !== undefined && more.length === 0) names.set(name, only);
  }
  return names;
}
