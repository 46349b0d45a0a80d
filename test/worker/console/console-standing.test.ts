/**
 * The console's standing approvals section in workerd (docs/console.md): a grant or revocation
 * without the session's CSRF token, or from another origin, changes nothing; without a session
 * the page sends the browser to sign in; with both, the form grants and revokes.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { gate, secretOf, send, setupConsumer, wipe } from "../../kit";

// The demo orders belong to the reference tenant; this file's storage is its own.
const C = "tenant-a";
const ORIGIN = "http://gate";
const T0 = 1_784_419_200;
const GRANT = { tool: "create_refund_draft", subject_id: "user-1", seconds: "600", max_calls: "2", constraint: "" };

function form(path: string, fields: Record<string, string>, headers: Record<string, string>): Promise<Response> {
  return gate(path, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(fields).toString(),
  });
}

async function signIn(secret: string): Promise<{ cookie: string; csrf: string }> {
  const res = await form("/console/session", { consumer: C, credential: secret }, { origin: ORIGIN });
  const cookie = (res.headers.get("set-cookie") ?? "").split(";")[0] as string;
  const page = await gate("/console/standing", { redirect: "manual", headers: { cookie } });
  expect(page.status).toBe(200);
  return { cookie, csrf: /<meta name="csrf-token" content="([0-9a-f]{64})">/.exec(await page.text())?.[1] ?? "" };
}

beforeEach(async () => {
  await wipe(C);
});

describe("the console's standing approvals", () => {
  it("changes nothing without the CSRF token or from another origin; grants and revokes with both", async () => {
    await setupConsumer(C, {
      config: {
        approver_subjects: ["rev-1"],
        standing_approvals: { tools: ["create_refund_draft"], max_seconds: 600, max_calls: 5 },
      },
      tools: ["create_refund_draft"],
      clock: T0,
    });
    const approver = await secretOf(C, "approver", "rev-1");
    const { cookie, csrf } = await signIn(approver);
    const list = async () =>
      (
        (await (await send("GET", `/v1/consumers/${C}/standing-approvals`, approver)).json()) as {
          standing_approvals: Array<{ standing_approval_id: string; state: string }>;
        }
      ).standing_approvals;

    const noToken = await form("/console/standing", { ...GRANT, csrf: "0".repeat(64) }, { cookie, origin: ORIGIN });
    expect([noToken.status, ((await noToken.json()) as { code: string }).code]).toEqual([403, "CSRF_REFUSED"]);
    const foreign = await form("/console/standing", { ...GRANT, csrf }, { cookie, origin: "https://evil.example" });
    expect(foreign.status).toBe(403);
    expect(await list()).toEqual([]);

    const granted = await form("/console/standing", { ...GRANT, csrf }, { cookie, origin: ORIGIN });
    const location = granted.headers.get("location") ?? "";
    expect([granted.status, /^\/console\/standing\?granted=sta_[0-9a-f]{32}$/.test(location)]).toEqual([303, true]);
    const id = location.slice("/console/standing?granted=".length);
    expect((await list()).map((s) => [s.standing_approval_id, s.state])).toEqual([[id, "active"]]);
    // Beyond the setting: back to the page, which names the problem.
    const tooLong = await form("/console/standing", { ...GRANT, seconds: "601", csrf }, { cookie, origin: ORIGIN });
    expect([tooLong.status, tooLong.headers.get("location")]).toEqual([
      303,
      "/console/standing?problem=STANDING_APPROVAL_NOT_ALLOWED",
    ]);

    const badRevoke = await form(
      `/console/standing/${id}/revoke`,
      { csrf: "1".repeat(64) },
      { cookie, origin: ORIGIN },
    );
    expect(badRevoke.status).toBe(403);
    expect((await list()).map((s) => s.state)).toEqual(["active"]);
    const revoked = await form(`/console/standing/${id}/revoke`, { csrf }, { cookie, origin: ORIGIN });
    expect([revoked.status, revoked.headers.get("location")]).toEqual([303, `/console/standing?revoked=${id}`]);
    expect((await list()).map((s) => s.state)).toEqual(["revoked"]);

    const page = await gate("/console/standing", { redirect: "manual", headers: { cookie } });
    const text = await page.text();
    expect([page.status, text.includes(`id="standing-${id}" data-state="revoked"`)]).toEqual([200, true]);
    const signedOut = await gate("/console/standing", { redirect: "manual" });
    expect([signedOut.status, signedOut.headers.get("location")]).toEqual([303, "/console?ended"]);
  });
});
