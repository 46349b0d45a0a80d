// Lint for the TypeScript sources: type-aware strict rules, plus the layering the core depends on.
// Run with `npm run lint`.
import importX, { createNodeResolver } from "eslint-plugin-import-x";
import tseslint from "typescript-eslint";

const typed = ["src/**/*.ts", "test/**/*.ts", "bench/**/*.ts"];

export default tseslint.config(
  {
    ignores: [
      "dist/**",
      "node_modules/**",
      "fixtures/**",
      "assets/**",
      "examples/**",
      "scripts/**",
      "coverage/**",
      ".wrangler/**",
      "test/openapi-types/generated/**",
      "**/*.d.ts",
      "**/*.js",
      "**/*.mjs",
    ],
  },
  {
    files: typed,
    extends: [tseslint.configs.strictTypeChecked],
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      // Numbers in messages (`at offset ${pos}`) are the house style; other non-strings still need a String().
      "@typescript-eslint/restrict-template-expressions": ["error", { allowNumber: true }],
      // `() => resolve()` and `return send(...)` as an early exit from a (possibly async) void function are house style.
      "@typescript-eslint/no-confusing-void-expression": "off",
      // `async` marks a Promise-returning interface (Durable Object handlers, blockConcurrencyWhile) so a throw rejects.
      "@typescript-eslint/require-await": "off",
      // Deps interfaces declare functions in method syntax but are built from arrow functions: destructuring is safe.
      "@typescript-eslint/unbound-method": "off",
      // Spreading a string into code points is deliberate: lengths and limits are counted in code points.
      "@typescript-eslint/no-misused-spread": "off",
      // The parsers unwind to their entry point with a refusal object it catches and returns as a value (no stack needed).
      "@typescript-eslint/only-throw-error": [
        "error",
        { allow: [{ from: "file", name: ["Refusal", "PatternRisk", "SchemaRefused"] }] },
      ],
      // Timers are declared before the closures that clear them and assigned after; they cannot be const.
      "prefer-const": ["error", { ignoreReadBeforeAssign: true }],
      // `const { secret: _secret, ...rest } = x` drops a key; `_` names a value that is deliberately unused.
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_", ignoreRestSiblings: true },
      ],
      // Overflows the stack on the recursive wire-value types (src/core/wire) in typescript-eslint 8.74.
      "@typescript-eslint/no-unsafe-class-instance-assignment": "off",
    },
  },
  {
    files: typed,
    plugins: { "import-x": importX },
    settings: {
      // Extensionless relative imports (moduleResolution "Bundler") resolve to .ts files, parsed as TypeScript.
      "import-x/extensions": [".ts", ".js"],
      "import-x/parsers": { "@typescript-eslint/parser": [".ts"] },
      "import-x/resolver-next": [createNodeResolver({ extensions: [".ts", ".js", ".json"] })],
    },
    rules: {
      // Cycles make module start-up order matter and blur the layers; none exist, keep it that way.
      "import-x/no-cycle": ["error", { ignoreExternal: true }],
    },
  },
  {
    // The core is pure: no platform, framework or outer-layer code (see docs/architecture.md).
    files: ["src/core/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            { regex: "^hono(/|$)", message: "src/core may not import hono." },
            { regex: "^cloudflare:", message: "src/core may not import Workers runtime modules." },
            { regex: "^node:", message: "src/core may not import Node built-ins." },
          ],
        },
      ],
      "import-x/no-nodejs-modules": "error",
      "import-x/no-restricted-paths": [
        "error",
        {
          zones: [
            {
              target: "./src/core",
              from: ["./src/worker", "./src/cli", "./src/client"],
              message: "src/core may not import the worker, CLI or client layers.",
            },
          ],
        },
      ],
    },
  },
);
