import * as z from "zod";
import { httpSchemas, Identifier } from "./registry";

/** Path segment naming a consumer (tenant). */
export const ConsumerName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/);

/** `PUT /v1/consumers/{consumer}`: the consumer's enabled tools and who may approve. */
export const ConsumerConfig = z
  .strictObject({
    tools: z.array(Identifier).max(256),
    approver_subjects: z.array(Identifier).max(256),
  })
  .register(httpSchemas, { id: "ConsumerConfig" });

/** A consumer as stored and returned. */
export const ConsumerView = z
  .strictObject({
    consumer: z.string(),
    tools: z.array(z.string()),
    approver_subjects: z.array(z.string()),
    created: z.boolean(),
  })
  .register(httpSchemas, { id: "ConsumerView" });

/** Parsed consumer configuration. */
export type ConsumerConfig = z.infer<typeof ConsumerConfig>;
