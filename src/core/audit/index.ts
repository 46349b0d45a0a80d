/**
 * The audit chain's digests and verification, shared by the Worker and offline verifiers.
 * @module
 */
export { entryDigest, GENESIS_SHA256, verifyChain, type ChainEntry, type ChainVerification } from "./chain";
