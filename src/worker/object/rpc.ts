import { readJson } from "../../core/json";
import type * as z from "../../core/zod";
import { STORED_JSON } from "./sql";

/**
 * Decodes a body the Worker already read strictly, checked against its contract and re-encoded
 * as canonical JSON text (RPC cannot carry the reader's `PyFloat`, text keeps `1.0` exact).
 * The contract runs again here, at the object's own boundary; a failure is a bug.
 */
export function fromWorker<S extends z.ZodMiniType>(text: string, schema: S): z.output<S> {
  const read = readJson(text, STORED_JSON);
  const parsed = read.ok ? schema.safeParse(read.value) : undefined;
  if (parsed === undefined || !parsed.success) throw new Error("the Worker sent a body outside its contract");
  return parsed.data;
}
