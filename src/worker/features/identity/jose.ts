/**
 * What principal-token verification uses of jose, imported dynamically by ./principal-token.ts:
 * a dynamic import keeps every export of the module it names, so it names this one (three
 * exports) rather than the package's index, and the bundle keeps only the parts of jose these use.
 * @module
 */
export { createLocalJWKSet, errors, jwtVerify } from "jose";
