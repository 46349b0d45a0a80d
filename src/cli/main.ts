import { closeSync, openSync, readFileSync, readSync, writeSync } from "node:fs";
import type { CliIo, Command, OutputFile } from "./io";

const USAGE = `usage: toolgate <command> [options]

commands:
  cases --fixture FILE [--dump]       run a tool-cases-v2 fixture (Tool Result v2)
  capability --fixture FILE           run a capability-cases-v1 scenario
  envelope validate FILE...           validate execution envelope v1 files
  audit verify --export FILE --key VERIFIER_KEY [--checkpoint SAVED]...
                                      verify an audit export offline
  audit prove --export FILE --seq N [--size M]
                                      print the inclusion proof of one audit entry
  admin <group> <verb> [options]      manage a running gate: consumers, tools, secrets,
                                      credentials, approvals, audit, webhooks
                                      (toolgate admin --help, docs/admin-cli.md)
`;

const commands: Record<string, () => Promise<Command>> = {
  cases: async () => (await import("./cases")).runCases,
  capability: async () => (await import("./capability")).runCapability,
  envelope: async () => (await import("./envelope")).runEnvelope,
  audit: async () => (await import("./audit")).runAudit,
  admin: async () => (await import("./admin")).runAdmin,
};

const CHUNK_BYTES = 1 << 20;

// Reads through one reused buffer; each chunk handed out is a copy, so callers may keep slices of it.
function* chunksOf(fd: number): Generator<Uint8Array> {
  try {
    const buffer = new Uint8Array(CHUNK_BYTES);
    for (;;) {
      const read = readSync(fd, buffer, 0, CHUNK_BYTES, null);
      if (read === 0) return;
      yield buffer.slice(0, read);
    }
  } finally {
    closeSync(fd);
  }
}

function writeAll(fd: number, text: string): void {
  const bytes = new TextEncoder().encode(text);
  let offset = 0;
  while (offset < bytes.length) offset += writeSync(fd, bytes, offset);
}

function outputFile(path: string): OutputFile {
  const fd = openSync(path, "w", 0o600);
  return {
    write: (bytes) => {
      let offset = 0;
      while (offset < bytes.length) offset += writeSync(fd, bytes, offset);
    },
    close: () => closeSync(fd),
  };
}

export const nodeIo: CliIo = {
  stdout: (text) => writeAll(1, text),
  stderr: (text) => writeAll(2, text),
  readFile: (path) => new Uint8Array(readFileSync(path)),
  readChunks: (path) => chunksOf(openSync(path, "r")),
  env: process.env,
  fetch: (input, init) => fetch(input, init),
  readStdin: () => new Uint8Array(readFileSync(0)),
  openOutput: outputFile,
};

/** Runs the toolgate command line and returns its exit status. */
export async function main(argv: string[], io: CliIo = nodeIo): Promise<number> {
  const [name, ...rest] = argv;
  const load = name === undefined ? undefined : commands[name];
  if (load === undefined) {
    io.stderr(
      name === undefined || name === "--help" || name === "-h"
        ? USAGE
        : `toolgate: unknown command '${name}'\n${USAGE}`,
    );
    return name === "--help" || name === "-h" ? 0 : 2;
  }
  return (await load())(rest, io);
}
