/**
 * The typed view of a consumer object's RPC operations the Worker calls through its stub. Types
 * and a proxy only: the registry itself stays on the object's side (./operations).
 * @module
 */
import type { ConsumerObject } from "./consumer-object";
import type { Operations } from "./feature";

/** An operation's arguments after the services. */
type ArgumentsOf<F> = F extends (s: never, ...args: infer A) => unknown ? A : never;
/** An operation's answer. */
type AnswerOf<F> = F extends (...args: never[]) => infer R ? Awaited<R> : never;

/** The object's operations as the Worker calls them: each answers a promise of what it returns. */
export type ObjectRpc = {
  readonly [K in keyof Operations]: (...args: ArgumentsOf<Operations[K]>) => Promise<AnswerOf<Operations[K]>>;
};

/** The typed operations over a sender of one operation by name. */
export function rpcProxy(send: (name: string, args: readonly unknown[]) => Promise<unknown>): ObjectRpc {
  const handler: ProxyHandler<object> = {
    get: (_, name) => (typeof name === "string" ? (...args: unknown[]) => send(name, args) : undefined),
  };
  // Every name reaches `send`, which runs the registry's operation of that name.
  return new Proxy({}, handler) as ObjectRpc;
}

/** The typed operations of a consumer object's stub. */
export function objectRpc(stub: DurableObjectStub<ConsumerObject>): ObjectRpc {
  return rpcProxy((name, args) => stub.rpc(name, args));
}
