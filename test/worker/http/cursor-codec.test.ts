import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { describe, expect, it } from "vitest";
import { pageCursor, readPageCursor, readVerifyCursor, verifyCursor } from "../../../src/worker/features/audit/cursor";
import { approvalsCursor } from "../../../src/worker/features/capability/cursor";
import { cursorCodec, safeIntegerKey } from "../../../src/worker/kernel/cursor";
import { listPage } from "../../../src/worker/kernel/list-page";
import { APPROVALS_CURSOR } from "../../../src/worker/features/tool-calls/approval-view";

const DETAIL = "The cursor is not one this list answered.";
const refused = (detail: string) => ({ ok: false, error: { code: "INVALID_CURSOR", detail } });
const seqs = cursorCodec<number>({
  prefix: "things:v1:",
  maxChars: 40,
  write: String,
  read: safeIntegerKey(/^[1-9][0-9]{0,15}$/),
  detail: DETAIL,
});

describe("the one cursor codec", () => {
  it("writes `<prefix><key>` as unpadded base64url of UTF-8 and reads it back", () => {
    // base64url("things:v1:12") and base64url("things:v1:é"), written out by hand.
    expect(seqs.encode(12)).toBe("dGhpbmdzOnYxOjEy");
    expect(seqs.read("dGhpbmdzOnYxOjEy")).toEqual({ ok: true, value: 12 });
    const texts = cursorCodec<string>({
      prefix: "things:v1:",
      maxChars: 40,
      write: (k) => k,
      read: (k) => k,
      detail: DETAIL,
    });
    expect(texts.encode("é")).toBe("dGhpbmdzOnYxOsOp");
    expect(texts.decode("dGhpbmdzOnYxOsOp")).toBe("é");
  });

  it("refuses every cursor it did not write with INVALID_CURSOR and the list's detail", () => {
    const bad = [
      "", // empty
      "dGhpbmdzOnYxOjEy=", // padded
      "dGhpbmdzOnYxOjF", // things:v1:1 with its trailing bits set (not canonical)
      "dGhpbmdzOnYxOjA", // things:v1:0 (key the list never answers)
      "b3RoZXI6djE6MTI", // other:v1:12 (another list)
      "dGhpbmdzOnYxOv8", // things:v1: then byte FF (not UTF-8)
      "dGhpbmdz!nYxOjEy", // not base64url
      "A".repeat(41), // longer than the bound, refused unread
      "things:v1:12", // the text itself, not armoured
    ];
    expect(bad.map((cursor) => seqs.read(cursor))).toEqual(bad.map(() => refused(DETAIL)));
    expect(bad.map((cursor) => seqs.decode(cursor))).toEqual(bad.map(() => null));
  });

  it("keeps each list's wire format byte for byte", () => {
    expect(pageCursor(7)).toBe("YXVkaXQtcGFnZTp2MTo3");
    expect(readPageCursor("YXVkaXQtcGFnZTp2MTo3")).toEqual({ ok: true, value: 7 });
    const sha = "ab".repeat(32);
    const walk =
      "YXVkaXQtdmVyaWZ5OnYxOjM6YWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYg";
    expect(verifyCursor({ seq: 3, sha256: sha })).toBe(walk);
    expect(readVerifyCursor(walk)).toEqual({ ok: true, value: { seq: 3, sha256: sha } });
    expect(readVerifyCursor(pageCursor(7))).toEqual(
      refused("The cursor is not one this route answered; start again without it."),
    );
    expect(APPROVALS_CURSOR.encode(5)).toBe("cGVuZGluZzo1");
    expect(APPROVALS_CURSOR.read("cGVuZGluZzo1")).toEqual({ ok: true, value: 5 });
    const page = listPage("tools", ["get_order", "lookup_refund", "zap"], (name) => name, null, 2);
    expect(page).toEqual({
      ok: true,
      value: { items: ["get_order", "lookup_refund"], next_cursor: "dG9vbHM6djE6bG9va3VwX3JlZnVuZA" },
    });
  });

  it("carries the capability approvals cursor as it is, tagged under the object's key for its consumer", () => {
    const key = "0f".repeat(32);
    const expectedTag = Array.from(
      hmac(
        sha256,
        new Uint8Array(32).fill(0x0f),
        new TextEncoder().encode("toolgate capability approvals cursor v1\nacme\n2"),
      ).subarray(0, 16),
      (b) => b.toString(16).padStart(2, "0"),
    ).join("");
    const cursor = approvalsCursor(key, "acme").encode(2n);
    expect(cursor).toBe(`2.${expectedTag}`);
    expect(approvalsCursor(key, "acme").read(cursor)).toEqual({ ok: true, value: 2n });
    const unissued = refused("The cursor is malformed or was not issued by this gate; start again without one.");
    expect([
      approvalsCursor(key, "other").read(cursor),
      approvalsCursor("1e".repeat(32), "acme").read(cursor),
      approvalsCursor(key, "acme").read(`02.${expectedTag}`),
    ]).toEqual([unissued, unissued, unissued]);
  });
});
