import type { Outcome } from "../../result";
import { defineFeature } from "../../kernel/feature";
import { tokenKeys } from "./format";
import { OAuthGrants, type OAuthGrant, type OAuthGrantRequest } from "./oauth-grant";
import { Revocation } from "./revocation";
import { CREDENTIAL_CACHE_ENTRIES, CredentialService } from "./service";
import { CREDENTIAL_MIGRATIONS } from "./store";

declare module "../../kernel/feature" {
  interface Services {
    readonly credentials: CredentialService;
    /** An MCP sign-in's credential minted, checked, ended. */
    readonly oauth: OAuthGrants;
    /** What ends with a revoked credential: its sessions, sockets and bindings. */
    readonly revocation: Revocation;
  }
  interface Operations {
    oauthGrant(s: Services, consumer: string, token: string, request: OAuthGrantRequest): Outcome<OAuthGrant>;
    oauthLive(s: Services, consumer: string, token: string): boolean;
    oauthEnd(s: Services, credentialId: string): boolean;
  }
}

/** Credentials: their table, the decoded ones cached in memory (an LRU map), and MCP sign-ins' grants. */
export const feature = defineFeature({
  name: "credentials",
  services: {
    credentials: (use) => {
      const kernel = use("kernel");
      return new CredentialService(kernel, tokenKeys(kernel.env));
    },
    oauth: (use) => new OAuthGrants(use("kernel"), use("gate"), use("credentials"), use("revocation")),
    revocation: (use) => new Revocation(use("kernel"), use("mcp"), use("capability")),
  },
  operations: {
    oauthGrant: (s, consumer, token, request) => s.oauth.grant(consumer, token, request),
    oauthLive: (s, consumer, token) => s.oauth.live(consumer, token),
    oauthEnd: (s, credentialId) => s.oauth.end(credentialId),
  },
  migrations: CREDENTIAL_MIGRATIONS,
  memory: (s) => [
    { structure: "credential cache", entries: s.credentials.cached, cap: CREDENTIAL_CACHE_ENTRIES, bound: "LRU" },
  ],
});
