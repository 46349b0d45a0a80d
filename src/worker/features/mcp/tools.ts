import { mcpAnnotations, mcpOutputSchema } from "../../../core/adapters/mcp";
import type { JsonObject } from "../../../core/json";
import type { ToolRegistry } from "../../../core/tool-result/tool-spec";
import type { McpProtocolVersion } from "../../../contracts/mcp";
import type { Caller } from "../credentials/service";
import { toolsInScope } from "../identity/scope";
import { declarationInputs } from "../tools/declare";
import type { CapabilityToolEntry } from "../capability/tool-call";
import { CAPABILITY_DATA_SCHEMA, capabilityInputSchema } from "../capability/tool-result";
import { targetOutputSchema } from "./target-result";

/** A tool's display title from its name: `create_refund_draft` → `Create refund draft`. */
export function toolTitle(name: string): string {
  const words = name.replace(/[_\-.]+/g, " ").trim();
  return words.length === 0 ? name : words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * `tools/list`: the consumer's enabled tools the credential may call (its tool scope), by
 * name, each with a description, its input schema, the `outputSchema` of what
 * `structuredContent` carries (the model result; an MCP target's: the downstream's own),
 * annotations from its risk, and, under
 * 2025-11-25, `execution.taskSupport: "optional"` on writes (they may wait for an approver).
 * One page: the list is bounded by the consumer's configuration.
 */
export function listTools(
  registry: ToolRegistry,
  caller: Caller,
  version: McpProtocolVersion,
  capabilities: readonly CapabilityToolEntry[] = [],
  mcpTarget: (tool: string) => boolean = () => false,
): JsonObject {
  const tools: JsonObject[] = [];
  for (const declared of toolsInScope(caller.tools, declarationInputs(registry))) {
    const spec = registry.get(declared.name);
    if (spec === undefined) continue;
    const title = toolTitle(spec.name);
    // An MCP target's structuredContent is the downstream's own: so is its schema (none when it declared none).
    const output = mcpTarget(spec.name)
      ? targetOutputSchema(spec.outputSchema?.document)
      : mcpOutputSchema(spec.outputSchema?.document);
    const tool: JsonObject = {
      name: spec.name,
      title,
      description: declared.description,
      inputSchema: declared.input,
      ...(output === undefined ? {} : { outputSchema: output }),
      annotations: { ...mcpAnnotations(spec.risk), title },
    };
    if (version === "2025-11-25" && spec.risk === "write") tool["execution"] = { taskSupport: "optional" };
    tools.push(tool);
  }
  for (const entry of capabilities) tools.push(capabilityTool(entry));
  return { tools };
}

/**
 * A capability tool (capability/tool-call.ts): its input names the granted resource scopes and
 * providers to choose from and the input sent; its `structuredContent` is the model result like
 * any tool's. Annotations claim nothing of its effect (a provider's capability may read or act).
 */
function capabilityTool(entry: CapabilityToolEntry): JsonObject {
  const title = toolTitle(entry.name);
  return {
    name: entry.name,
    title,
    description: entry.description,
    inputSchema: capabilityInputSchema(entry.scopes, entry.providers),
    outputSchema: mcpOutputSchema(CAPABILITY_DATA_SCHEMA),
    annotations: { title, openWorldHint: true },
  };
}
