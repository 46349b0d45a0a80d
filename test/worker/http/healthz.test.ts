import { describe, expect, it } from "vitest";
import { gateFetch } from "../../kit";

describe("GET /healthz", () => {
  it("answers ok", async () => {
    const res = await gateFetch("http://gate/healthz");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
  });
});
