import type { ConsumerObject } from "./consumer";

/** Bindings of the toolgate Worker. */
export interface Env {
  CONSUMER: DurableObjectNamespace<ConsumerObject>;
  TOOLGATE_ADMIN_TOKEN?: string;
}
