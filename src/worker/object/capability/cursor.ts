import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, hexToBytes, utf8ToBytes } from "@noble/hashes/utils.js";
import { U64_MAX } from "../../../core/capability";
import { secretsEqual } from "../../timing-safe";

const TAG_BYTES = 16;
const SHAPE = /^(0|[1-9][0-9]{0,19})\.([0-9a-f]{32})$/;

function tag(keyHex: string, consumer: string, position: bigint): string {
  const mac = hmac(sha256, hexToBytes(keyHex), utf8ToBytes(`toolgate capability approvals cursor v1\n${consumer}\n${position}`));
  return bytesToHex(mac.subarray(0, TAG_BYTES));
}

/**
 * The opaque cursor of the approvals page that starts after `position` (the
 * `accepted_sequence` of the last approval the previous page held). It carries an
 * HMAC-SHA-256 tag under the object's own cursor key, bound to the consumer, so a cursor the
 * gate did not issue is refused. It grants nothing: it only says where the next page starts.
 */
export function writeCursor(keyHex: string, consumer: string, position: bigint): string {
  return `${position}.${tag(keyHex, consumer, position)}`;
}

/** The position a cursor names, or `null` if it is malformed or its tag is not the gate's. */
export function readCursor(keyHex: string, consumer: string, cursor: string): bigint | null {
  const match = SHAPE.exec(cursor);
  if (match === null) return null;
  const [, digits, presented] = match;
  if (digits === undefined || presented === undefined) return null;
  const position = BigInt(digits);
  if (position > U64_MAX) return null;
  return secretsEqual(presented, tag(keyHex, consumer, position)) ? position : null;
}
