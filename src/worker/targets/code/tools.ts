/**
 * The tools an embedding Worker brings as code (`createGate({ tools })`): the checks they pass
 * when the gate is built, and the tool names a consumer may then enable.
 * @module
 */
import { TOOL_NAME_PATTERN } from "../../../contracts/tool-definition";
import type { ToolSpec } from "../../../core/tool-result/tool-spec";
import { ALL_TOOL_NAMES } from "../catalog";
import { runnerOf } from "./runner";

/**
 * A code tool's name: the one pattern of every tool name ({@link TOOL_NAME_PATTERN}), so a
 * consumer's tools, whatever their kind, obey one rule every vendor's function declaration accepts.
 */
export const CODE_TOOL_NAME = TOOL_NAME_PATTERN;

/**
 * Checks the tools given to `createGate`; answers them as one frozen list. Each must run in
 * process or be defined with `execute` (`defineTool` of `toolgate/worker`), have a name of {@link CODE_TOOL_NAME} that no other given tool and no built-in tool
 * ({@link ALL_TOOL_NAMES}) has. A violation is a programming error of the embedding Worker:
 * this throws, so the Worker fails at start rather than on a call.
 */
export function checkCodeTools(tools: readonly ToolSpec[]): readonly ToolSpec[] {
  const seen = new Set<string>();
  for (const tool of tools) {
    if (!CODE_TOOL_NAME.test(tool.name))
      throw new Error(`createGate: tool name ${JSON.stringify(tool.name)} is not ${String(CODE_TOOL_NAME)}`);
    if (ALL_TOOL_NAMES.includes(tool.name))
      throw new Error(`createGate: tool ${tool.name} clashes with a built-in tool of the gate`);
    if (seen.has(tool.name)) throw new Error(`createGate: tool ${tool.name} is given twice`);
    if (tool.execution.kind !== "in_process" && runnerOf(tool) === undefined)
      throw new Error(
        `createGate: tool ${tool.name} must run in process (execution.kind "in_process") or be defined with execute`,
      );
    seen.add(tool.name);
  }
  return Object.freeze([...tools]);
}

/**
 * The tool names a consumer of this gate may list in its `tools`: the built-in catalog, then
 * the embedding Worker's code tools (`ConsumerObject.codeTools()`).
 */
export function knownToolNames(codeTools: readonly ToolSpec[]): readonly string[] {
  return [...ALL_TOOL_NAMES, ...codeTools.map((tool) => tool.name)];
}
