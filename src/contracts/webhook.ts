import * as z from "../core/zod";
import { EVENT_TYPES } from "./events";
import { httpSchemas } from "./registry";
import { DOCS } from "./docs";

/**
 * Webhook endpoints of a consumer (docs/webhooks.md): where the gate sends its events
 * (`contracts/events.ts`), signed per Standard Webhooks, and the log of every delivery.
 * @module
 */

/** An endpoint's id (the path segment of `…/webhooks/{endpoint_id}`). */
export const WebhookEndpointId = z.deferred(() => z.string().check(z.regex(/^ep_[0-9a-f]{32}$/)));

/** A delivery's id (the path segment of `…/webhooks/deliveries/{delivery_id}`). */
export const WebhookDeliveryId = z.deferred(() => z.string().check(z.regex(/^dlv_[0-9a-f]{32}$/)));

/** Whether a URL names no user or password (one that does not parse is the `url` check's to refuse). */
function withoutCredentials(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.username === "" && parsed.password === "";
  } catch {
    return true;
  }
}

/** `POST /v1/consumers/{consumer}/webhooks`. */
export const WebhookEndpointRequest = z.deferred(() =>
  z
    .strictObject({
      url: z.url().check(
        z.maxLength(2048),
        z.refine(withoutCredentials, { error: "a webhook URL carries no credentials" }),
        z.meta({
          description: DOCS
            ? "Where deliveries are POSTed: https (loopback http only under npm start), without credentials."
            : "",
        }),
      ),
      events: z
        ._default(
          z.array(z.enum(EVENT_TYPES)).check(
            z.minLength(1),
            z.maxLength(EVENT_TYPES.length),
            z.refine((types) => new Set(types).size === types.length, { error: "an event type is listed twice" }),
          ),
          [...EVENT_TYPES],
        )
        .check(z.meta({ description: DOCS ? "The event types delivered (default: all four)." : "" })),
      include_arguments: z
        ._default(z.boolean(), false)
        .check(z.meta({ description: DOCS ? "Deliver the call's `arguments` in `data` (default: never)." : "" })),
      description: z
        .optional(z.string().check(z.maxLength(256), z.regex(/^[^\p{Cc}]*$/u)))
        .check(z.meta({ description: DOCS ? "A note for people (no control characters)." : "" })),
    })
    .register(httpSchemas, { id: "WebhookEndpointRequest" }),
);

const endpointFields = z.deferredShape(() => ({
  endpoint_id: z.string(),
  url: z.string(),
  events: z.array(z.enum(EVENT_TYPES)),
  include_arguments: z.boolean(),
  description: z.nullable(z.string()),
  created_at: z.int(),
}));

/** An endpoint as the admin sees it: never its secret. */
export const WebhookEndpointView = z.deferred(() =>
  z.strictObject(endpointFields()).register(httpSchemas, { id: "WebhookEndpoint" }),
);

/** The answer of a creation: the endpoint and its signing secret, shown this once. */
export const WebhookEndpointCreated = z.deferred(() =>
  z
    .strictObject({
      ...endpointFields(),
      secret: z.string().check(
        z.meta({
          description: DOCS
            ? "`whsec_` + base64 of 24 random bytes: the Standard Webhooks signing secret. Shown only here; stored sealed."
            : "",
        }),
      ),
    })
    .register(httpSchemas, { id: "WebhookEndpointCreated" }),
);

/** `GET …/webhooks`: a page of the consumer's endpoints (at most 16 in all), oldest first; `next_cursor` is null on the last page. */
export const WebhookEndpointList = z.deferred(() =>
  z
    .strictObject({ endpoints: z.array(WebhookEndpointView), next_cursor: z.nullable(z.string()) })
    .register(httpSchemas, { id: "WebhookEndpointList" }),
);

/** How an attempt failed: a non-2xx answer, no answer in time, no answer at all, no key to sign with, or a URL the target rule refuses (nothing sent). */
export const WebhookAttemptError = z.deferred(() =>
  z.enum(["http_status", "timeout", "network", "secret_unavailable", "target_refused"]),
);

/** One attempt of a delivery, as logged (never the secret, the signature or the answer's body). */
export const WebhookAttemptView = z.deferred(() =>
  z.strictObject({
    attempt: z.int().check(z.gte(1)),
    at: z.int().check(z.describe(DOCS ? "Unix seconds." : "")),
    status_code: z
      .nullable(z.int())
      .check(z.describe(DOCS ? "The receiver's HTTP status; null when it did not answer." : "")),
    duration_ms: z.int(),
    error: z.nullable(WebhookAttemptError),
  }),
);

/** One message to one endpoint, and its attempts. */
export const WebhookDeliveryView = z.deferred(() =>
  z
    .strictObject({
      delivery_id: z.string(),
      endpoint_id: z.string(),
      message_id: z
        .string()
        .check(
          z.describe(
            DOCS
              ? "The `webhook-id` header: fixed for the message's life, the same on every attempt and redelivery."
              : "",
          ),
        ),
      event_type: z.enum(EVENT_TYPES),
      state: z.enum(["pending", "delivered", "failed"]),
      failure: z
        .nullable(z.enum(["attempts_exhausted", "backlog_full"]))
        .check(z.describe(DOCS ? "Why a `failed` delivery stopped." : "")),
      attempts: z.array(WebhookAttemptView),
      next_attempt_at: z
        .nullable(z.int())
        .check(
          z.describe(
            DOCS
              ? "Unix seconds of the next attempt (pending only); a later message waits for an earlier one of the same endpoint."
              : "",
          ),
        ),
      created_at: z.int(),
      finished_at: z.nullable(z.int()),
      redelivery_of: z
        .nullable(z.string())
        .check(z.describe(DOCS ? "The delivery this one repeats (`…/redeliver`)." : "")),
    })
    .register(httpSchemas, { id: "WebhookDelivery" }),
);

/** `GET …/webhooks/deliveries`: newest first; `next_cursor` (pass back as `?cursor=`) is `null` on the last page. */
export const WebhookDeliveryPage = z.deferred(() =>
  z
    .strictObject({ deliveries: z.array(WebhookDeliveryView), next_cursor: z.nullable(z.string()) })
    .register(httpSchemas, { id: "WebhookDeliveryPage" }),
);

/** Parsed endpoint request. */
export type WebhookEndpointRequest = z.output<typeof WebhookEndpointRequest>;
/** An endpoint view. */
export type WebhookEndpointView = z.output<typeof WebhookEndpointView>;
/** A delivery view. */
export type WebhookDeliveryView = z.output<typeof WebhookDeliveryView>;
/** An attempt's error class. */
export type WebhookAttemptError = z.output<typeof WebhookAttemptError>;
