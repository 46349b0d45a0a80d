// The public port of the gate `npm start` serves, shared by the commands that start it and those
// that talk to it, so both read TOOLGATE_PORT the same way and agree on its default.

/** The port `npm start` serves on when TOOLGATE_PORT is not set. */
export const DEFAULT_PORT = 8787;

/** TOOLGATE_PORT's value (undefined: not set) read as a port: the port, or one line saying why not. */
export function gatePort(value: string | undefined): { ok: true; port: number } | { ok: false; message: string } {
  const port = Number(value ?? DEFAULT_PORT);
  return Number.isInteger(port) && port >= 1 && port <= 65535
    ? { ok: true, port }
    : { ok: false, message: `TOOLGATE_PORT must be a port number (1–65535), not ${JSON.stringify(value)}` };
}
