// The admin client: each method's method, URL and body, as the routes (and `toolgate admin`) take them.
import { describe, expect, it } from "vitest";
import { AdminClient } from "../../src/client";

interface Sent {
  readonly method: string;
  readonly url: string;
  readonly body: string | null;
  readonly authorization: string | null;
}

function recording(): { admin: AdminClient; sent: Sent[] } {
  const sent: Sent[] = [];
  const fetch = async (url: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const headers = new Headers(init?.headers);
    sent.push({
      method: init?.method ?? "GET",
      url: url instanceof Request ? url.url : url.toString(),
      body: typeof init?.body === "string" ? init.body : null,
      authorization: headers.get("authorization"),
    });
    return init?.method === "DELETE" ? new Response(null, { status: 204 }) : Response.json({ ok: 1 });
  };
  const options = { baseUrl: "https://gate.example/", consumer: "acme co", token: "admin-secret", fetch };
  return { admin: new AdminClient(options), sent };
}

describe("AdminClient", () => {
  it("sends each admin route the CLI drives", async () => {
    const { admin, sent } = recording();
    await admin.consumers({ cursor: "b", limit: 2 });
    await admin.consumer();
    await admin.putConsumer({ tools: ["refund"], approver_subjects: [] });
    await admin.patchConsumer({ audit_arguments: "full" });
    await admin.createCredential({ kind: "agent", subject_id: "alice" });
    await admin.credentials("c1");
    expect(await admin.revokeCredential("cred_0123456789abcdef")).toEqual({ ok: true, value: null });
    await admin.putTool("lookup/x", {
      description: "d",
      risk: "read",
      input: { type: "object" },
      output: { schema: { type: "object" } },
      target: { kind: "http", url: "https://api.example/x" },
    });
    await admin.tools();
    await admin.tool("lookup");
    await admin.setToolState("lookup", "disabled");
    await admin.deleteTool("lookup");
    await admin.putSecret("api_key", "s3cret");
    await admin.secrets();
    await admin.deleteSecret("api_key");
    const c = "https://gate.example/v1/consumers/acme%20co";
    expect(sent.map((s) => `${s.method} ${s.url} ${s.body ?? "-"}`)).toEqual([
      "GET https://gate.example/v1/consumers?cursor=b&limit=2 -",
      `GET ${c} -`,
      `PUT ${c} {"tools":["refund"],"approver_subjects":[]}`,
      `PATCH ${c} {"audit_arguments":"full"}`,
      `POST ${c}/credentials {"kind":"agent","subject_id":"alice"}`,
      `GET ${c}/credentials?cursor=c1 -`,
      `DELETE ${c}/credentials/cred_0123456789abcdef -`,
      `PUT ${c}/tools/lookup%2Fx {"description":"d","risk":"read","input":{"type":"object"},"output":{"schema":{"type":"object"}},"target":{"kind":"http","url":"https://api.example/x"}}`,
      `GET ${c}/tools -`,
      `GET ${c}/tools/lookup -`,
      `PATCH ${c}/tools/lookup {"state":"disabled"}`,
      `DELETE ${c}/tools/lookup -`,
      `PUT ${c}/secrets/api_key {"value":"s3cret"}`,
      `GET ${c}/secrets -`,
      `DELETE ${c}/secrets/api_key -`,
    ]);
    expect(new Set(sent.map((s) => s.authorization))).toEqual(new Set(["Bearer admin-secret"]));
  });
});
