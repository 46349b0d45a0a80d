import { defineFeature } from "../../kernel/feature";
import { ObjectSockets } from "./upgrade";

declare module "../../kernel/feature" {
  interface Services {
    readonly sockets: ObjectSockets;
  }
}

/** The accepted WebSockets (runtime and capability sessions; hibernation keeps them outside the isolate). */
export const feature = defineFeature({
  name: "sockets",
  services: {
    sockets: (use) =>
      new ObjectSockets(use("kernel"), use("gate"), use("credentials"), use("capability"), use("runtime")),
  },
  sockets: {
    upgrade: async (s, request) => s.sockets.upgrade(request),
    message: (s, ws, message) => s.sockets.message(ws, message),
    close: (s, ws, code, reason) => s.sockets.close(ws, code, reason),
  },
  memory: (s) => [
    {
      structure: "WebSockets",
      entries: s.kernel.ctx.getWebSockets().length,
      cap: null,
      bound: "sockets_per_credential per credential",
    },
  ],
});
