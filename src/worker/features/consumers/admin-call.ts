/**
 * The admin's calls on one consumer (the Worker checked the admin secret): its configuration,
 * its credentials (mint, revoke, list) and the App Facade's target map. Each answers canonical
 * JSON text, or `null` for a revocation (204).
 * @module
 */
import { ConsumerConfig, ConsumerPatch } from "../../../contracts/consumer";
import type { ToolState } from "../../../contracts/tool-views";
import { CreateCredentialRequest } from "../../../contracts/credential";
import { canonicalJson } from "../../../core/json";
import { problem } from "../../http/problem";
import { fail, ok, type Outcome } from "../../result";
import { consumerDetails, credentialPage } from "./reads";
import { configOf, patched } from "./patch";
import { bindingOf, type CredentialService } from "../credentials/service";
import type { Gatekeeper } from "../../kernel/gatekeeper";
import type { ObjectKernel } from "../../kernel/kernel";
import type { Revocation } from "../credentials/revocation";
import { received, type Carried } from "../../kernel/rpc";
import type { RuntimeTransport } from "../runtime/service";
import type { ToolCallServices } from "../tool-calls/services";
import { checkUrl, type TargetPolicy } from "../tools/build";
import type { ToolsHost } from "../tools/host";

/** One admin call (a body as the Worker read and validated it, as RPC carries it: ../rpc.ts). */
export type AdminCall =
  | { readonly kind: "configure"; readonly config: Carried<ConsumerConfig> }
  | { readonly kind: "patchConsumer"; readonly patch: Carried<ConsumerPatch> }
  | { readonly kind: "setToolState"; readonly name: string; readonly state: ToolState }
  | { readonly kind: "getConsumer" }
  | { readonly kind: "createCredential"; readonly request: Carried<CreateCredentialRequest> }
  | { readonly kind: "revokeCredential"; readonly credentialId: string }
  | { readonly kind: "listCredentials"; readonly cursor: string | null }
  | { readonly kind: "facadeTargets"; readonly targets: Record<string, string> | null };

function unknownTools(tools: ToolsHost, names: readonly string[]): Outcome<null> {
  const unknown = tools.unknownNames(names);
  return unknown.length === 0
    ? ok(null)
    : fail(
        problem("UNKNOWN_TOOL_NAMES", `No tool is defined under ${unknown.map((n) => JSON.stringify(n)).join(", ")}.`),
      );
}

/** The issuer's `jwks_uri` passes the target rule: the gate fetches it, so it names no private address. */
function issuerKeysUrl(targets: TargetPolicy, config: ConsumerConfig): Outcome<null> {
  const uri = config.principal_tokens?.jwks_uri;
  const refused = uri === undefined ? null : checkUrl(uri, "/principal_tokens/jwks_uri", targets);
  return refused === null
    ? ok(null)
    : fail({
        ...problem("INVALID_REQUEST", refused.message.replace("a target URL", "a jwks_uri")),
        path: refused.pointer,
      });
}

/** The admin's calls: the consumer's configuration, its credentials and the App Facade's targets. */
export class AdminCalls {
  constructor(
    private readonly kernel: ObjectKernel,
    private readonly gate: Gatekeeper,
    private readonly credentials: CredentialService,
    /** Which tool names some source defines. */
    private readonly tools: ToolsHost,
    /** Rebuilt after the configuration changed (its registry and approvers). */
    private readonly toolCalls: ToolCallServices,
    private readonly runtime: RuntimeTransport,
    /** A credential was revoked: its sockets, waits and streams end now. */
    private readonly revocation: Revocation,
  ) {}

  /** Runs one admin call. Creating a consumer (`configure`) is the one call that needs no consumer yet. */
  call(consumer: string, call: AdminCall): Outcome<string | null> {
    const { kernel, credentials } = this;
    const [limits, now, audit] = [kernel.limits(), kernel.now(), kernel.audit];
    if (call.kind === "configure") return this.#configure(consumer, received(call.config, ConsumerConfig));
    const config = this.gate.admin(consumer, call.kind);
    if (!config.ok) return config;
    switch (call.kind) {
      case "patchConsumer": {
        // Read, merged and written in one synchronous step of the object: no other call interleaves.
        const merged = patched(config.value, received(call.patch, ConsumerPatch));
        return merged.ok ? this.#configure(consumer, merged.value) : merged;
      }
      case "setToolState": {
        const listed = config.value.tools.includes(call.name);
        if (!listed && !this.tools.knownNames().includes(call.name)) return fail(problem("NOT_FOUND", "No such tool."));
        const answer = ok(canonicalJson({ name: call.name, state: call.state }));
        if (listed === (call.state === "enabled")) return answer;
        const tools = listed ? config.value.tools.filter((t) => t !== call.name) : [...config.value.tools, call.name];
        const saved = this.#configure(consumer, { ...configOf(config.value), tools });
        return saved.ok ? answer : saved;
      }
      case "getConsumer":
        return ok(consumerDetails(config.value, limits, kernel.sql.databaseSize, audit.alarm.view()));
      case "createCredential":
        return kernel.transaction(() =>
          credentials.issue(consumer, bindingOf(received(call.request, CreateCredentialRequest)), now, audit),
        );
      case "revokeCredential": {
        const revoked = kernel.transaction(() => {
          const done = credentials.revoke(call.credentialId, now);
          if (done) audit.append("credential.revoked", now, { credential_id: call.credentialId });
          return done;
        });
        // Its sockets close, its waits and streams (the console's included) end, its MCP sessions and tasks go now.
        if (revoked) this.revocation.revoked(call.credentialId);
        return revoked ? ok(null) : fail(problem("NOT_FOUND", "No such credential."));
      }
      case "listCredentials":
        return credentialPage(kernel.sql, call.cursor, limits.page_items);
      case "facadeTargets": {
        const known = call.targets === null ? ok(null) : unknownTools(this.tools, Object.values(call.targets));
        return known.ok ? ok(this.runtime.facadeTargets(call.targets)) : known;
      }
    }
  }

  /** Stores a whole configuration (a PUT, or a patch's result), checked as a PUT body is; answers the stored view. */
  #configure(consumer: string, config: ConsumerConfig): Outcome<string> {
    const { kernel } = this;
    const known = unknownTools(this.tools, config.tools);
    if (!known.ok) return known;
    const keys = issuerKeysUrl(kernel.targets, config);
    if (!keys.ok) return keys;
    const now = kernel.now();
    const saved = kernel.transaction(() => kernel.config.configure(consumer, config, now));
    this.toolCalls.invalidate();
    // A wait or stream of a subject no longer among the approvers ends now.
    kernel.events.recheck();
    return ok(saved);
  }
}
