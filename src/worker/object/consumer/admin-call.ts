/**
 * The admin's calls on one consumer (the Worker checked the admin secret): its configuration,
 * its credentials (mint, revoke, list) and the App Facade's target map. Each answers canonical
 * JSON text, or `null` for a revocation (204).
 * @module
 */
import type { ConsumerConfig } from "../../../contracts/consumer";
import type { CreateCredentialRequest } from "../../../contracts/credential";
import { problem } from "../../problem";
import { fail, ok, type Outcome } from "../../result";
import { consumerDetails, credentialPage } from "../admin-reads";
import type { AuditChain } from "../audit/plane";
import { bindingOf, type CredentialPlane } from "../credentials/plane";
import type { EventBus } from "../events/bus";
import type { Gatekeeper } from "../gatekeeper";
import type { Limits } from "../limits";
import type { RuntimeTransport } from "../runtime/plane";
import { checkUrl, type TargetPolicy } from "../tools/build";
import type { ConsumerPlane, ConsumerRecord } from "./plane";

/** One admin call. */
export type AdminCall =
  | { readonly kind: "configure"; readonly config: ConsumerConfig }
  | { readonly kind: "getConsumer" }
  | { readonly kind: "createCredential"; readonly request: CreateCredentialRequest }
  | { readonly kind: "revokeCredential"; readonly credentialId: string }
  | { readonly kind: "listCredentials"; readonly cursor: string | null }
  | { readonly kind: "facadeTargets"; readonly targets: Record<string, string> | null };

/** What the admin's calls use of their object. */
export interface AdminDeps {
  readonly sql: SqlStorage;
  readonly gate: Gatekeeper;
  readonly consumer: ConsumerPlane;
  readonly credentials: CredentialPlane;
  readonly audit: AuditChain;
  readonly limits: Limits;
  /** Where outbound URLs may point (the target rule): the issuer's `jwks_uri` is one. */
  readonly targets: TargetPolicy;
  /** Unix seconds (the object's clock). */
  readonly now: number;
  transaction<T>(step: () => T): T;
  /** The tool names no source defines. */
  unknownNames(names: readonly string[]): string[];
  /** The configuration changed: the tool-call plane rebuilds its registry on the next call. */
  configured(): void;
  /** The consumer's bus: its waits and streams end once their credential no longer holds. */
  readonly events: EventBus;
  /** A credential was revoked: its sockets, waits and streams end now. */
  revoked(credentialId: string): void;
  runtimeOf(config: ConsumerRecord): RuntimeTransport;
}

function unknownTools(deps: AdminDeps, names: readonly string[]): Outcome<null> {
  const unknown = deps.unknownNames(names);
  return unknown.length === 0 ? ok(null) : fail(problem("UNKNOWN_TOOL_NAMES", `No tool is defined under ${unknown.map((n) => JSON.stringify(n)).join(", ")}.`));
}

/** The issuer's `jwks_uri` passes the target rule: the gate fetches it, so it names no private address. */
function issuerKeysUrl(deps: AdminDeps, config: ConsumerConfig): Outcome<null> {
  const uri = config.principal_tokens?.jwks_uri;
  const refused = uri === undefined ? null : checkUrl(uri, "/principal_tokens/jwks_uri", deps.targets);
  return refused === null ? ok(null) : fail({ ...problem("INVALID_REQUEST", refused.message.replace("a target URL", "a jwks_uri")), path: refused.pointer });
}

/** Runs one admin call. Creating a consumer (`configure`) is the one call that needs no consumer yet. */
export function adminCall(deps: AdminDeps, consumer: string, call: AdminCall): Outcome<string | null> {
  if (call.kind === "configure") {
    const known = unknownTools(deps, call.config.tools);
    if (!known.ok) return known;
    const keys = issuerKeysUrl(deps, call.config);
    if (!keys.ok) return keys;
    const saved = deps.transaction(() => deps.consumer.configure(consumer, call.config, deps.now));
    deps.configured();
    // A wait or stream of a subject no longer among the approvers ends now.
    deps.events.recheck();
    return ok(saved);
  }
  const config = deps.gate.admin(consumer, call.kind);
  if (!config.ok) return config;
  switch (call.kind) {
    case "getConsumer":
      return ok(consumerDetails(config.value, deps.limits, deps.sql.databaseSize, deps.audit.alarm.view()));
    case "createCredential":
      return deps.transaction(() => deps.credentials.issue(consumer, bindingOf(call.request), deps.now, deps.audit));
    case "revokeCredential": {
      const revoked = deps.transaction(() => {
        const done = deps.credentials.revoke(call.credentialId, deps.now);
        if (done) deps.audit.append("credential.revoked", deps.now, { credential_id: call.credentialId });
        return done;
      });
      // Its sockets close, its waits and streams (the console's included) end, its MCP sessions and tasks go now.
      if (revoked) deps.revoked(call.credentialId);
      return revoked ? ok(null) : fail(problem("NOT_FOUND", "No such credential."));
    }
    case "listCredentials":
      return credentialPage(deps.sql, call.cursor, deps.limits.page_items);
    case "facadeTargets": {
      const known = call.targets === null ? ok(null) : unknownTools(deps, Object.values(call.targets));
      return known.ok ? ok(deps.runtimeOf(config.value).facadeTargets(call.targets)) : known;
    }
  }
}
