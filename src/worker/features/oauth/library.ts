/**
 * What the gate uses of `@cloudflare/workers-oauth-provider`, named: loaded on first use through
 * {@link ./server.ts oauthLibrary}. Importing the names (not the whole module) lets the bundler
 * leave out the library's parts the gate never runs (the combined provider, the resource server).
 * @module
 */
export {
  AuthorizationError,
  authorizationErrorRedirect,
  CimdFetchError,
  OAuthAuthorizationServer,
  OAuthError,
} from "@cloudflare/workers-oauth-provider";
