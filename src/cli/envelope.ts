import type { CliIo } from "./io";

/** Placeholder until the envelope command lands. */
export function runEnvelope(_args: string[], io: CliIo): number {
  io.stderr("toolgate envelope: not implemented yet\n");
  return 2;
}
