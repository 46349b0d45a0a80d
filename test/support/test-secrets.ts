/**
 * The gate's secrets in the workerd test projects (vitest.config.ts "worker",
 * test/reliability/vitest.config.ts): fixed test values, never a deployment's, so a test can
 * mint and check credentials, sign and verify with them.
 */
export const TEST_SECRETS = {
  TOOLGATE_ADMIN_TOKEN: "test-admin-token-0123456789",
  TOOLGATE_TOKEN_KEY: "test-token-key-0123456789abcdef0123456789",
  TOOLGATE_SIGNING_KEY: "test-signing-key-0123456789abcdef012345",
  TOOLGATE_SECRETS_KEY: "test-secrets-key-0123456789abcdef0123456",
  // A test key (seed 01 02 … 20): signs audit checkpoints.
  TOOLGATE_AUDIT_SIGNING_KEY: "PRIVATE+KEY+toolgate-test+f62e6223+AQECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8g",
} as const;
