import type { CliIo } from "./io";

/** Placeholder until the capability command lands. */
export function runCapability(_args: string[], io: CliIo): number {
  io.stderr("toolgate capability: not implemented yet\n");
  return 2;
}
