/**
 * `toolgate audit`: the offline tools of the audit log. `verify` checks an export against
 * verifier keys and saved checkpoints; `prove` prints the inclusion proof of one entry.
 * @module
 */
import { encodeBase64, inclusionProof, verifyInclusion } from "../core/audit";
import { readExport, reasonOf } from "./audit-export";
import { verifyExport } from "./audit-verify";
import type { CliIo } from "./io";

const USAGE = `usage: toolgate audit verify --export FILE --key VERIFIER_KEY [--key VERIFIER_KEY]... [--checkpoint SAVED_FILE]...
       toolgate audit prove --export FILE --seq N [--size M]
`;

type Options = Map<string, string[]>;

// Accepts `--name VALUE` and `--name=VALUE`; every option takes a value and may repeat.
function parseOptions(args: string[], known: readonly string[]): Options | string {
  const options: Options = new Map();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const eq = arg.indexOf("=");
    const name = eq < 0 ? arg : arg.slice(0, eq);
    if (!name.startsWith("--") || !known.includes(name.slice(2))) return `unrecognized argument: ${name}`;
    const value = eq < 0 ? args[++i] : arg.slice(eq + 1);
    if (value === undefined || value === "") return `argument ${name}: expected one argument`;
    options.set(name.slice(2), [...(options.get(name.slice(2)) ?? []), value]);
  }
  return options;
}

function usage(io: CliIo, message: string): number {
  io.stderr(`toolgate audit: ${message}\n${USAGE}`);
  return 2;
}

/** The one value of an option that may appear once. */
function single(options: Options, name: string): string | undefined | null {
  const values = options.get(name);
  if (values === undefined) return undefined;
  return values.length === 1 ? values[0] : null;
}

const POSITIVE = /^[1-9][0-9]{0,15}$/;

function positive(text: string | undefined): number | undefined {
  return text !== undefined && POSITIVE.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : undefined;
}

function runVerify(args: string[], io: CliIo): number {
  const options = parseOptions(args, ["export", "key", "checkpoint"]);
  if (typeof options === "string") return usage(io, options);
  const exportFile = single(options, "export");
  if (exportFile === null) return usage(io, "argument --export: given more than once");
  if (exportFile === undefined) return usage(io, "the --export FILE argument is required");
  const keys = options.get("key") ?? [];
  if (keys.length === 0) return usage(io, "at least one --key VERIFIER_KEY is required");
  return verifyExport({ exportFile, keys, checkpoints: options.get("checkpoint") ?? [] }, io);
}

function proveFailure(io: CliIo, message: string): number {
  io.stderr(`toolgate audit prove: ${message}\n`);
  return 2;
}

/**
 * `audit prove`: the RFC 9162 inclusion proof of entry `seq` (leaf index seq − 1) in the tree of
 * the export's first `size` entries, checked before it is printed. Hashes are standard base64.
 */
function runProve(args: string[], io: CliIo): number {
  const options = parseOptions(args, ["export", "seq", "size"]);
  if (typeof options === "string") return usage(io, options);
  const exportFile = single(options, "export");
  const seqText = single(options, "seq");
  const sizeText = single(options, "size");
  if (exportFile === null || seqText === null || sizeText === null) return usage(io, "each option may be given once");
  if (exportFile === undefined || seqText === undefined)
    return usage(io, "the --export FILE and --seq N arguments are required");
  const seq = positive(seqText);
  if (seq === undefined) return usage(io, `argument --seq: not a positive integer: ${seqText}`);
  const askedSize = sizeText === undefined ? undefined : positive(sizeText);
  if (sizeText !== undefined && askedSize === undefined)
    return usage(io, `argument --size: not a positive integer: ${sizeText}`);
  let chunks: Iterable<Uint8Array>;
  try {
    chunks = io.readChunks?.(exportFile) ?? [io.readFile(exportFile)];
  } catch (caught) {
    return proveFailure(io, `cannot read ${exportFile} (${reasonOf(caught)})`);
  }
  const read = readExport(chunks, { check: false });
  if (!read.ok) return proveFailure(io, `${exportFile}: ${read.error}`);
  const { tree } = read.value;
  const size = askedSize ?? tree.size;
  if (size > tree.size) return proveFailure(io, `--size ${size} exceeds the export's ${tree.size} entries`);
  if (seq > size) return proveFailure(io, `--seq ${seq} is beyond the tree of ${size} entries`);
  const index = seq - 1;
  const leaf = tree.node(0, index);
  const root = tree.root(size);
  const proof = inclusionProof(tree, index, size);
  if (!verifyInclusion(leaf, index, size, proof, root)) throw new Error("an inclusion proof failed its own check");
  const answer = {
    seq,
    leaf_index: index,
    tree_size: size,
    leaf_hash: encodeBase64(leaf),
    root: encodeBase64(root),
    proof: proof.map(encodeBase64),
  };
  // JSON.stringify keeps insertion order, which the literal above fixes.
  io.stdout(`${JSON.stringify(answer)}\n`);
  return 0;
}

/**
 * `toolgate audit verify|prove …`. verify: exit 0 when every check passes, 1 on a finding, 2 on
 * bad input; prove: exit 0 with the proof on stdout, 2 on bad input.
 */
export function runAudit(args: string[], io: CliIo): number {
  const [sub, ...rest] = args;
  if (sub === "verify") return runVerify(rest, io);
  if (sub === "prove") return runProve(rest, io);
  return usage(io, sub === undefined ? "a subcommand is required" : `unknown subcommand '${sub}'`);
}
