/**
 * A denial's reason in the model result (docs/approvals.md, "Words of the approver and of the
 * agent"): the catalog's message, then the approver's words quoted with hidden characters
 * escaped; validateResult accepts exactly that form, on APPROVAL_INVALID only.
 */
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../../src/core/json";
import { bindToolCall, requestDigest, validateResult } from "../../../src/core/tool-result";
import { approverSaid, errorPackage } from "../../../src/core/tool-result/packages";
import { createDemoEngine } from "../../../src/conformance/tool-cases";
import { context, NOW, principal } from "./host-context";

const INVALID = "Approval expired or is not bound to the current request.";
const REQUIRED = "This action requires approval bound to the current arguments.";
const call = bindToolCall(
  { name: "create_refund_draft", arguments: { order_ref: "ORDER-7", reason: "duplicate" } },
  context("call-1", "idem-1"),
);
const spec = createDemoEngine().registry.get("create_refund_draft");
const digest = requestDigest(principal, call, spec, sha256Hex);

describe("a denial's note", () => {
  it("quotes the approver's words with a bidi control escaped", () => {
    expect(approverSaid('Wrong "order" \u202Eok')).toBe('The approver said: "Wrong \\"order\\" ⟨U+202E⟩ok"');
  });

  it("follows the catalog's message and validates; without a note the message is the catalog's", () => {
    const noted = errorPackage(
      principal,
      call,
      spec,
      "APPROVAL_INVALID",
      digest,
      NOW,
      sha256Hex,
      null,
      undefined,
      approverSaid("No"),
    );
    expect(noted.model_result.error?.safe_message).toBe(`${INVALID} The approver said: "No"`);
    expect(validateResult(principal, call, spec, noted)).toEqual([]);
    const plain = errorPackage(principal, call, spec, "APPROVAL_INVALID", digest, NOW, sha256Hex);
    expect(plain.model_result.error?.safe_message).toBe(INVALID);
    expect(validateResult(principal, call, spec, plain)).toEqual([]);
  });

  it("is refused on another code, or in another form", () => {
    const other = errorPackage(
      principal,
      call,
      spec,
      "APPROVAL_REQUIRED",
      digest,
      NOW,
      sha256Hex,
      null,
      undefined,
      approverSaid("No"),
    );
    expect(other.model_result.error?.safe_message).toBe(`${REQUIRED} The approver said: "No"`);
    expect(validateResult(principal, call, spec, other)).toContain(
      "model_result.error.safe_message does not use a fixed error-catalog value",
    );
    const unquoted = errorPackage(
      principal,
      call,
      spec,
      "APPROVAL_INVALID",
      digest,
      NOW,
      sha256Hex,
      null,
      undefined,
      "The approver said: No",
    );
    expect(validateResult(principal, call, spec, unquoted)).toContain(
      "model_result.error.safe_message does not use a fixed error-catalog value",
    );
  });
});
