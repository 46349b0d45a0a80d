/**
 * The dependencies the workerd test projects (vitest.config.ts "worker", the reliability suite's
 * "rel-worker") bundle once per run. The pool inlines every dependency, so without this each
 * file's workerd would fetch the app's libraries module by module (jose and zod with its locales
 * are well over a hundred); bundled, each library is one module.
 */
export const WORKERD_DEPS = {
  optimizer: {
    ssr: {
      enabled: true,
      include: [
        "@cloudflare/workers-oauth-provider",
        "@marcbachmann/cel-js",
        "@noble/curves/ed25519.js",
        "@noble/hashes/hkdf.js",
        "@noble/hashes/hmac.js",
        "@noble/hashes/sha2.js",
        "@noble/hashes/utils.js",
        "hono",
        "hono/hono-base",
        "hono/route",
        "hono/router",
        "hono/router/trie-router",
        "hono/utils/html",
        "jose",
        "zod/v4/locales/en.js",
        "zod/mini",
      ],
    },
  },
};
