/**
 * The OAuth consent page cannot be spoofed with hidden characters: registration refuses display
 * fields holding bidi controls or invisible characters (400 `invalid_client_metadata`, RFC 7591
 * §3.2.2); the page shows client text escaped and marked, isolated, and where access goes on a
 * line of its own. Expected markup is written by hand.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { consentPage, initialChoice } from "../../../src/worker/features/oauth/page";
import { createConsumer, gateFetch, wipe } from "../../kit";
import { freshAddress } from "../oauth-client";

const ORIGIN = "https://gate.test";
const A = "oauth-visible-a";
const SPOOF_REDIRECT = "https://moc.elgoog.xxx/callback";
const BIDI = '<mark class="hidden-char hidden-bidi" title="bidirectional control: reorders the text around it">';
const LOOKALIKE = '<mark class="hidden-char hidden-confusable" title="look-alike of a Latin letter, digit or sign">';

function at(path: string, init: RequestInit = {}): Promise<Response> {
  return gateFetch(new Request(`${ORIGIN}${path}`, { redirect: "manual", ...init }));
}

function register(metadata: Record<string, unknown>): Promise<Response> {
  return at("/oauth/register", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ redirect_uris: [SPOOF_REDIRECT], token_endpoint_auth_method: "none", ...metadata }),
  });
}

beforeEach(async () => {
  await wipe(A);
  await createConsumer(A, ["get_order"], ["rev-1"]);
});

describe("client registration reads its body as strict JSON before the library does", () => {
  it("refuses a member named twice, a lone surrogate, a non-object and an oversize body; registers the same metadata written once", async () => {
    // From an address of its own: the five registrations stay out of the other tests' bucket.
    const address = freshAddress();
    const post = (body: string) =>
      at("/oauth/register", {
        method: "POST",
        headers: { "content-type": "application/json", "cf-connecting-ip": address },
        body,
      });
    const head = `{"redirect_uris":["${SPOOF_REDIRECT}"],"token_endpoint_auth_method":"none",`;
    const answers = [];
    for (const body of [
      `${head}"client_name":"Claude","client_name":"Other"}`,
      `${head}"client_name":"Cl\\ud800aude"}`,
      "[1]",
      `${head}"client_name":"${"x".repeat(65_536)}"}`,
    ]) {
      const res = await post(body);
      answers.push([res.status, res.headers.get("cache-control"), await res.json()]);
    }
    // A browser client (the Inspector) may read the refusal, as it may the library's own answers.
    const fromBrowser = await at("/oauth/register", {
      method: "POST",
      headers: { "content-type": "application/json", "cf-connecting-ip": address, origin: "http://localhost:6274" },
      body: "[1]",
    });
    expect([fromBrowser.status, fromBrowser.headers.get("access-control-allow-origin")]).toEqual([
      400,
      "http://localhost:6274",
    ]);
    expect(answers).toEqual([
      [
        400,
        "no-store",
        {
          error: "invalid_client_metadata",
          error_description: "JSON_DUPLICATE_KEY: JSON contains a duplicate field: client_name (at offset 125)",
        },
      ],
      [
        400,
        "no-store",
        {
          error: "invalid_client_metadata",
          error_description: "JSON_DOMAIN: $.client_name is not a valid UTF-8 string (at offset 117)",
        },
      ],
      [
        400,
        "no-store",
        { error: "invalid_client_metadata", error_description: "The registration is not a JSON object." },
      ],
      [413, "no-store", { error: "invalid_request", error_description: "The body exceeds 65536 bytes." }],
    ]);
    const once = await post(`${head}"client_name":"Claude"}`);
    expect(once.status).toBe(201);
  });
});

describe("client registration refuses hidden characters in display fields", () => {
  it("refuses a client_name ending in U+202E with invalid_client_metadata, naming the code point", async () => {
    const res = await register({ client_name: "Claude\u202E" });
    expect([res.status, await res.json()]).toEqual([
      400,
      {
        error: "invalid_client_metadata",
        error_description:
          "client_name holds ⟨U+202E⟩ (bidirectional control: reorders the text around it): the fields a person reads must hold no bidi control, invisible, control or other hidden character.",
      },
    ]);
  });

  it("refuses zero-width, tag and control characters in the name's language variants, the URIs and the contacts", async () => {
    const refused = [
      { client_name: "Claude", "client_name#ja": "Cl\u200Baude" },
      { client_name: "Claude", client_uri: "https://claude.test/\u2066" },
      { client_name: "Claude", contacts: ["ops@claude.test", "a\u{E0041}@claude.test"] },
      { client_name: "Claude\nAI" },
    ];
    const answers = [];
    for (const metadata of refused) {
      const res = await register(metadata);
      answers.push([
        res.status,
        ((await res.json()) as { error: string; error_description: string }).error_description.split(":")[0],
      ]);
    }
    expect(answers).toEqual([
      [400, "client_name#ja holds ⟨U+200B⟩ (invisible character)"],
      [400, "client_uri holds ⟨U+2066⟩ (bidirectional control"],
      [400, "contacts holds ⟨U+E0041⟩ (invisible character)"],
      [400, "client_name holds ⟨U+000A⟩ (control character or line separator)"],
    ]);
  });

  it("registers a name with a look-alike letter (its neighbours decide; the page marks it) and shows it marked, the redirect origin on its own line", async () => {
    const res = await register({ client_name: "Cl\u0430ude" });
    expect(res.status).toBe(201);
    const client = ((await res.json()) as { client_id: string }).client_id;
    const q = new URLSearchParams({
      response_type: "code",
      client_id: client,
      redirect_uri: SPOOF_REDIRECT,
      state: "s",
      code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
      code_challenge_method: "S256",
      resource: `${ORIGIN}/v1/consumers/${A}/mcp`,
    });
    const html = await (await at(`/oauth/authorize?${q}`)).text();
    const name = `<bdi class="client">Cl${LOOKALIKE}⟨U+0430⟩</mark>ude</bdi>`;
    expect(/<h1>(.*?)<\/h1>/.exec(html)?.[1]).toBe(`Allow ${name} to call tools of <code>${A}</code>?`);
    expect(/<title>(.*?)<\/title>/.exec(html)?.[1]).toBe("Sign in to toolgate: Cl⟨U+0430⟩ude");
    expect(html).toContain(
      `<p>The app calls itself <strong>${name}</strong>; that name is not verified.</p>\n<p>After you allow it, access is sent to:</p>\n<p class="target" id="redirect-target"><strong><code dir="ltr">https://moc.elgoog.xxx</code></strong></p>\n`,
    );
  });
});

describe("the consent page shows client text marked", () => {
  it("escapes and isolates a name ending in U+202E, so the redirect origin reads as registered", () => {
    const html = consentPage({
      consumer: A,
      clientName: "Claude\u202E",
      redirectUri: SPOOF_REDIRECT,
      redirectIsLoopback: false,
      requested: ["get_order\u200B"],
      handle: "h-1",
      choice: initialChoice(["get_order\u200B"]),
      error: null,
    });
    const name = `<bdi class="client">Claude${BIDI}⟨U+202E⟩</mark></bdi>`;
    expect(/<h1>(.*?)<\/h1>/.exec(html)?.[1]).toBe(`Allow ${name} to call tools of <code>${A}</code>?`);
    expect(/<title>(.*?)<\/title>/.exec(html)?.[1]).toBe("Sign in to toolgate: Claude⟨U+202E⟩");
    expect(/<p>The app calls itself (.*?)<\/p>/.exec(html)?.[1]).toBe(
      `<strong>${name}</strong>; that name is not verified.`,
    );
    expect(/<p class="target" id="redirect-target">(.*?)<\/p>/.exec(html)?.[1]).toBe(
      '<strong><code dir="ltr">https://moc.elgoog.xxx</code></strong>',
    );
    expect(/<label for="tool-0">(.*?)<\/label>/.exec(html)?.[1]).toBe(
      '<input type="checkbox" id="tool-0" name="tool" value="get_order\u200B" checked> <code>get_order<mark class="hidden-char hidden-invisible" title="invisible character">⟨U+200B⟩</mark></code>',
    );
    expect(/[\u202A-\u202E\u2066-\u2069]/.test(html)).toBe(false);
  });

  it("lays out a name or a tool with right-to-left letters in stored order (isolate-override), with a note", () => {
    // U+05D0 HEBREW LETTER ALEF before digit groups: rendered plainly, "\u05D0 0044 0532" reads "0532 0044 \u05D0".
    const html = consentPage({
      consumer: A,
      clientName: "\u05D0 0044 0532",
      redirectUri: SPOOF_REDIRECT,
      redirectIsLoopback: false,
      requested: ["\u0627 12"],
      handle: "h-1",
      choice: initialChoice([]),
      error: null,
    });
    const note = ' <small class="stored-order-note">(contains right-to-left text, shown in stored order)</small>';
    expect(/<h1>(.*?)<\/h1>/.exec(html)?.[1]).toBe(
      `Allow <bdi class="client"><span class="stored-order" dir="ltr">\u05D0 0044 0532</span>${note}</bdi> to call tools of <code>${A}</code>?`,
    );
    expect(/<label for="tool-0">.*?<code>(.*?)<\/code><\/label>/.exec(html)?.[1]).toBe(
      `<span class="stored-order" dir="ltr">\u0627 12</span>${note}`,
    );
    expect(/<style>[^<]*(\.stored-order\{[^}]*\})/.exec(html)?.[1]).toBe(
      ".stored-order{unicode-bidi:isolate-override;direction:ltr}",
    );
  });
});
