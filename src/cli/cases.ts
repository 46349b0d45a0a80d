import type { CliIo } from "./io";

/** Placeholder until the cases command lands. */
export function runCases(_args: string[], io: CliIo): number {
  io.stderr("toolgate cases: not implemented yet\n");
  return 2;
}
