/** What a subcommand may touch: its arguments, two output streams and the file system. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  readFile(path: string): Uint8Array;
}

/** A subcommand: returns the process exit status. */
export type Command = (args: string[], io: CliIo) => number | Promise<number>;
