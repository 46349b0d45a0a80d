/**
 * Issue #30 item 3, tools as code: `confirmedBy: "end_user"` on `defineTool` (the end user
 * confirms a write's approval in chat; docs/approvals.md, "Who decides"). The gate's handling of
 * such an approval is test/worker/tool-calls/end-user-confirmation.test.ts.
 */
import { describe, expect, it } from "vitest";
import * as z from "zod/mini";
import { defineTool } from "../../../src/worker/gate";

describe("confirmedBy in a code tool", () => {
  const input = z.object({ customer: z.string() });
  const output = z.object({ customer: z.string() });
  const write = (confirmedBy?: "approvers" | "end_user") =>
    defineTool({
      name: "pay_self",
      description: "Move money between the user's own accounts.",
      input,
      output,
      risk: "write",
      ...(confirmedBy === undefined ? {} : { confirmedBy }),
      execute: (args) => args,
    });

  it("a write carries it (joining its policy revision only when it is the end user); a read is refused", () => {
    const endUser = write("end_user");
    const approvers = write("approvers");
    const plain = write();
    expect([endUser.confirmedBy, approvers.confirmedBy, plain.confirmedBy]).toEqual(["end_user", undefined, undefined]);
    expect(approvers.policyRevision).toBe(plain.policyRevision);
    expect(endUser.policyRevision).not.toBe(plain.policyRevision);
    expect(() =>
      defineTool({
        name: "peek",
        description: "Read.",
        input,
        output,
        confirmedBy: "end_user",
        execute: (args) => args,
      }),
    ).toThrow(
      new TypeError('defineTool peek: a read has no approval to confirm; drop confirmedBy or say risk: "write"'),
    );
  });
});
