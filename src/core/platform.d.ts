/**
 * The host globals the pure core uses beyond ES2023, declared here so `src/core/tsconfig.json`
 * type-checks the core with no DOM, Worker or Node typings. Each is in every runtime toolgate
 * targets (Workers, Node ≥ 18, Deno, Bun, browsers).
 *
 * Used by `json/reader.ts`, `json/digest.ts`, `wire/surface.ts`, `capability/admission.ts`
 * (UTF-8 text) and `capability/{operation,engine/queries,scenario}.ts` (`structuredClone`).
 *
 * The root `tsconfig.json` excludes this file (there the Worker and Node typings declare these
 * globals); only `src/core/tsconfig.json` reads it. The two interfaces are the complete WHATWG
 * ones (they are small), not only the members the core calls.
 */

/** WHATWG `structuredClone`; the core clones plain engine data (objects, arrays, bigints). */
declare function structuredClone<T>(value: T): T;

/** WHATWG `TextEncoder`: UTF-8 encoding. */
interface TextEncoder {
  readonly encoding: string;
  encode(input?: string): Uint8Array;
  encodeInto(source: string, destination: Uint8Array): { read: number; written: number };
}
declare var TextEncoder: { prototype: TextEncoder; new (): TextEncoder };

/** WHATWG `TextDecoder`; with `fatal`, invalid input throws instead of decoding to U+FFFD. */
interface TextDecoder {
  readonly encoding: string;
  readonly fatal: boolean;
  readonly ignoreBOM: boolean;
  decode(input?: ArrayBuffer | ArrayBufferView, options?: { stream?: boolean }): string;
}
declare var TextDecoder: {
  prototype: TextDecoder;
  new (label?: string, options?: { fatal?: boolean; ignoreBOM?: boolean }): TextDecoder;
};
