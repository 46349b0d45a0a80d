/** What a subcommand may touch: its arguments, two output streams and the file system. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  readFile(path: string): Uint8Array;
  /**
   * Opens a file and reads it in chunks, so a large input is never one string in memory.
   * Throws like `readFile` when the file cannot be opened; without it, commands read the file whole.
   */
  readChunks?(path: string): Iterable<Uint8Array>;
}

/** A subcommand: returns the process exit status. */
export type Command = (args: string[], io: CliIo) => number | Promise<number>;
