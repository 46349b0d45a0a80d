// The part of the `ws` package (installed with wrangler's dependencies; it ships no types) that
// bench/profile-workerd.ts uses: a client WebSocket to workerd's inspector.
declare module "ws" {
  export default class WebSocket {
    constructor(url: string);
    once(event: "open", listener: () => void): this;
    once(event: "error", listener: (error: Error) => void): this;
    on(event: "message", listener: (data: Buffer) => void): this;
    send(data: string): void;
    close(): void;
  }
}
