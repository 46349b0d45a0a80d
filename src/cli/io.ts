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
  /** The process environment: `toolgate admin` reads its tokens here only, never from a flag. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** HTTP for `toolgate admin` (the platform's `fetch` by default). */
  readonly fetch?: typeof fetch;
  /** All of standard input (a secret's value piped in). */
  readStdin?(): Uint8Array;
  /** Creates (or truncates) a file, mode 0600, written piece by piece (an audit export). */
  openOutput?(path: string): OutputFile;
}

/** A file being written. */
export interface OutputFile {
  write(bytes: Uint8Array): void;
  close(): void;
}

/** A subcommand: returns the process exit status. */
export type Command = (args: string[], io: CliIo) => number | Promise<number>;
