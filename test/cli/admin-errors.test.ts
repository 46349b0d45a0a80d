/**
 * `toolgate admin` prints its errors for a person as it prints its tables: a gate problem's
 * title and detail (which can echo a name a user chose) and the words typed on the command line
 * shown with bidi controls, invisible and look-alike characters and combining marks escaped
 * (`⟨U+202E⟩`), the note under them. `--json` output stays as the gate wrote it. Expected text
 * is written by hand.
 */
import { describe, expect, it } from "vitest";
import { runAdmin } from "../../src/cli/admin";
import type { CliIo } from "../../src/cli/io";

const NOTE =
  "note: ⟨U+…⟩ stands for a character shown by its code point: a bidi control, an invisible, control or look-alike character, a combining mark, or a right-to-left letter on a line with digits or Latin letters\n";

/** An io whose gate answers every request with `status` and `body`; what was printed. */
function io(status: number, body: unknown): { io: CliIo; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  const gate = async () =>
    new Response(JSON.stringify(body), {
      status,
      headers: { "content-type": status < 300 ? "application/json" : "application/problem+json" },
    });
  return {
    out,
    err,
    io: {
      stdout: (text) => out.push(text),
      stderr: (text) => err.push(text),
      readFile: () => new Uint8Array(),
      env: {
        TOOLGATE_ADMIN_TOKEN: "admin-token",
        TOOLGATE_CONSUMER: "tenant-a",
        TOOLGATE_URL: "http://127.0.0.1:8881",
      },
      fetch: gate,
    },
  };
}

describe("toolgate admin's errors", () => {
  it("escapes a problem's title and detail that echo a chosen name: bidi override, look-alike letter, combining mark", async () => {
    // The detail names a tool "p" U+0430 "y" U+202E "x", and one "Ko" U+0308 "ln"; the title holds a zero-width space.
    const problem = {
      type: "about:blank",
      title: "Not\u200B found",
      status: 404,
      code: "NOT_FOUND",
      detail: "no tool p\u0430y\u202Ex or Ko\u0308ln",
    };
    const run = io(404, problem);
    expect(await runAdmin(["tools", "show", "get_order"], run.io)).toBe(1);
    expect(run.err).toEqual([
      "toolgate admin tools show: GET /v1/consumers/tenant-a/tools/get_order: Not⟨U+200B⟩ found (404 NOT_FOUND): no tool p⟨U+0430⟩y⟨U+202E⟩x or Ko⟨U+0308⟩ln\n" +
        NOTE,
    ]);
    expect(run.out).toEqual([]);
  });

  it("escapes a right-to-left letter in an error line with digits, so a terminal cannot reverse them", async () => {
    const run = io(409, {
      type: "about:blank",
      title: "Conflict",
      status: 409,
      code: "CONFLICT",
      detail: "memo \u05D0 0044 0532",
    });
    expect(await runAdmin(["tools", "show", "get_order"], run.io)).toBe(1);
    expect(run.err).toEqual([
      "toolgate admin tools show: GET /v1/consumers/tenant-a/tools/get_order: Conflict (409 CONFLICT): memo ⟨U+05D0⟩ 0044 0532\n" +
        NOTE,
    ]);
  });

  it("escapes what was typed when it is echoed: an unknown group or verb", async () => {
    const group = io(200, {});
    expect(await runAdmin(["t\u043Eols"], group.io)).toBe(2);
    expect(group.err[0]?.split("\n")[0]).toBe("toolgate admin: unknown group 't⟨U+043E⟩ols'");
    expect(group.err[0]?.split("\n").at(-2)).toBe(NOTE.trimEnd());
    const verb = io(200, {});
    expect(await runAdmin(["tools", "sh\u202Eow"], verb.io)).toBe(2);
    expect(verb.err[0]?.split("\n")[0]).toBe("toolgate admin tools: unknown verb 'sh⟨U+202E⟩ow'");
  });

  it("leaves plain errors as they were, with no note", async () => {
    const run = io(404, {
      type: "about:blank",
      title: "Not found",
      status: 404,
      code: "NOT_FOUND",
      detail: "no tool get_order",
    });
    expect(await runAdmin(["tools", "show", "get_order"], run.io)).toBe(1);
    expect(run.err).toEqual([
      "toolgate admin tools show: GET /v1/consumers/tenant-a/tools/get_order: Not found (404 NOT_FOUND): no tool get_order\n",
    ]);
  });

  it("prints --json answers as the gate wrote them", async () => {
    const tool = { name: "get_order", current_version: 1, description: "Reads p\u0430y\u202Ex \u05D0 12", history: [] };
    const run = io(200, tool);
    expect(await runAdmin(["tools", "show", "get_order", "--json"], run.io)).toBe(0);
    expect(run.out).toEqual([`${JSON.stringify(tool)}\n`]);
  });
});
