/**
 * `ProtocolError`: why an envelope was refused. The five codes and their display texts are the
 * seed's `ProtocolError` variants, so a log line reads the same on both sides of the wire.
 * @module
 */

/** The stable error codes. */
export type ProtocolErrorCode =
  "invalid_json" | "unknown_field" | "unsupported_version" | "missing_identifier" | "invalid_binding";

/** A refused envelope. `path` is set for `unknown_field` only (`$.payload.payload.x`). */
export interface ProtocolError {
  code: ProtocolErrorCode;
  path: string | null;
  message: string;
}

/** `InvalidJson`: the text is not JSON, or not the shape of an envelope. */
export function invalidJson(detail: string): ProtocolError {
  return { code: "invalid_json", path: null, message: `invalid protocol JSON: ${detail}` };
}

/** `UnknownField`: a key outside the contract. */
export function unknownField(path: string): ProtocolError {
  return { code: "unknown_field", path, message: `unknown protocol field: ${path}` };
}

/** `UnsupportedVersion`. */
export function unsupportedVersion(actual: number): ProtocolError {
  return { code: "unsupported_version", path: null, message: `unsupported protocol version ${actual}` };
}

/** `MissingIdentifier`: a required identifier is blank. */
export function missingIdentifier(name: string): ProtocolError {
  return { code: "missing_identifier", path: null, message: `missing required identifier: ${name}` };
}

/** `InvalidBinding`: an environment binding is absent or disagrees with its command. */
export function invalidBinding(reason: string): ProtocolError {
  return { code: "invalid_binding", path: null, message: `invalid command binding: ${reason}` };
}
