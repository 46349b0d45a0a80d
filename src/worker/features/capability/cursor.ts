import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, hexToBytes, utf8ToBytes } from "@noble/hashes/utils.js";
import { U64_MAX } from "../../../core/capability";
import { secretsEqual } from "../../http/timing-safe";
import { cursorCodec, type CursorCodec } from "../../kernel/cursor";

const TAG_BYTES = 16;
const SHAPE = /^(0|[1-9][0-9]{0,19})\.([0-9a-f]{32})$/;

function tag(keyHex: string, consumer: string, position: bigint): string {
  const mac = hmac(
    sha256,
    hexToBytes(keyHex),
    utf8ToBytes(`toolgate capability approvals cursor v1\n${consumer}\n${position}`),
  );
  return bytesToHex(mac.subarray(0, TAG_BYTES));
}

/**
 * The cursors of the capability approvals pages: `<position>.<tag>` as it is (already URL-safe),
 * the page starting after `position` (the `accepted_sequence` of the last approval the previous
 * page held). The tag is an HMAC-SHA-256 under the object's own cursor key, bound to the
 * consumer, so a cursor the gate did not issue is refused. It grants nothing: it only says where
 * the next page starts.
 */
export function approvalsCursor(keyHex: string, consumer: string): CursorCodec<bigint> {
  return cursorCodec<bigint>({
    prefix: "",
    armor: "plain",
    maxChars: 128,
    write: (position) => `${position}.${tag(keyHex, consumer, position)}`,
    read: (text) => {
      const match = SHAPE.exec(text);
      if (match?.[1] === undefined || match[2] === undefined) return null;
      const position = BigInt(match[1]);
      if (position > U64_MAX) return null;
      return secretsEqual(match[2], tag(keyHex, consumer, position)) ? position : null;
    },
    detail: "The cursor is malformed or was not issued by this gate; start again without one.",
  });
}
