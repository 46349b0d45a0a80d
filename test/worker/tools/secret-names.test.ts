/**
 * A write under a name outside its pattern is the client's mistake, answered `400 INVALID_REQUEST`
 * with the pattern (it used to be `404 No such secret`, which read as a missing consumer or route);
 * reading or deleting such a name stays `404`: there is no such thing.
 */
import { describe, expect, it } from "vitest";
import { ADMIN_TOKEN, createConsumer, send } from "../../kit";

const C = "secret-names";
const P = `/v1/consumers/${C}`;

async function answer(method: string, path: string, body?: unknown): Promise<[number, unknown]> {
  const res = await send(method, `${P}${path}`, ADMIN_TOKEN, body);
  const text = await res.text();
  return [res.status, text === "" ? null : (JSON.parse(text) as unknown)];
}

const invalid = (detail: string) => ({
  type: "https://toolgate.dev/problems/invalid-request",
  title: "Request does not match its contract",
  status: 400,
  code: "INVALID_REQUEST",
  detail,
});
const notFound = (what: string) => ({
  type: "https://toolgate.dev/problems/not-found",
  title: "Not found",
  status: 404,
  code: "NOT_FOUND",
  detail: `No such ${what}.`,
});

describe("names outside their pattern", () => {
  it("PUT …/secrets/Bad-Name answers 400 naming the pattern; a good name is stored", async () => {
    await createConsumer(C, [], []);
    const secret = invalid("A secret name matches ^[a-z][a-z0-9_]{0,63}$.");
    expect([
      await answer("PUT", "/secrets/Bad-Name", { value: "v" }),
      await answer("PUT", "/secrets/1st", { value: "v" }),
      await answer("PUT", `/secrets/${"s".repeat(65)}`, { value: "v" }),
      await answer("PUT", "/secrets/good_name", { value: "v" }),
    ]).toEqual([
      [400, secret],
      [400, secret],
      [400, secret],
      [204, null],
    ]);
  });

  it("PUT …/tools/{bad name} answers 400 naming the one tool-name pattern", async () => {
    expect(await answer("PUT", "/tools/_private", {})).toEqual([
      400,
      invalid("A tool name matches ^[a-zA-Z][a-zA-Z0-9_-]{0,63}$."),
    ]);
  });

  it("reading or deleting such a name stays 404", async () => {
    expect([
      await answer("DELETE", "/secrets/Bad-Name"),
      await answer("GET", "/tools/_private"),
      await answer("DELETE", "/tools/_private"),
    ]).toEqual([
      [404, notFound("secret")],
      [404, notFound("tool")],
      [404, notFound("tool")],
    ]);
  });
});
