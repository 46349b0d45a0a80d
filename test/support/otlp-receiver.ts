/**
 * An OTLP/HTTP JSON traces receiver behind workerd's outbound fetch in the worker tests
 * (`https://otlp.test/v1/traces`, the TOOLGATE_OTLP_ENDPOINT bound in vitest.config.ts). Every
 * worker test's tool calls export there; the receiver keeps exports only while a test has armed
 * it, and answers 200 to the rest. It keeps each export's raw text (scanned for secrets), its
 * parsed body and its headers.
 *
 * Tests drive it at `https://otlp.test/_control` (`{ reset?, armed?, status?, hold? }`; `hold`
 * true parks every export until `{ hold: false }`) and read it at `/_state`.
 */

/** One export the receiver kept. */
export interface ReceivedExport {
  text: string;
  headers: Record<string, string>;
  body: unknown;
}

export class OtlpReceiver {
  armed = false;
  /** The status every kept export is answered with (a collector that fails: 500, 503). */
  status = 200;
  readonly exports: ReceivedExport[] = [];
  /** Exports answered while not armed (other tests' traffic). */
  ignored = 0;
  /** Exports parked while held. */
  held = 0;
  #holding = false;
  readonly #release: Array<() => void> = [];

  reset(): void {
    this.armed = false;
    this.status = 200;
    this.exports.length = 0;
    this.ignored = 0;
    this.held = 0;
    this.#unhold();
  }

  #unhold(): void {
    this.#holding = false;
    for (const release of this.#release.splice(0)) release();
  }

  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/_control") {
      const control = (await request.json()) as { reset?: boolean; armed?: boolean; status?: number; hold?: boolean };
      if (control.reset === true) this.reset();
      if (control.armed !== undefined) this.armed = control.armed;
      if (control.status !== undefined) this.status = control.status;
      if (control.hold === true) this.#holding = true;
      if (control.hold === false) this.#unhold();
      return Response.json({ armed: this.armed });
    }
    if (url.pathname === "/_state")
      return Response.json({ exports: this.exports, ignored: this.ignored, held: this.held });
    if (url.pathname !== "/v1/traces" || request.method !== "POST")
      return Response.json({ error: "no such endpoint" }, { status: 404 });
    const text = await request.text();
    if (!this.armed) {
      this.ignored += 1;
      return Response.json({});
    }
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => (headers[name.toLowerCase()] = value));
    if (this.#holding) {
      this.held += 1;
      await new Promise<void>((done) => this.#release.push(done));
    }
    this.exports.push({ text, headers, body: JSON.parse(text) as unknown });
    return Response.json({}, { status: this.status });
  }
}
