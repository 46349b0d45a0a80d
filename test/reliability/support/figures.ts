/**
 * Figures of the reliability suite. Each check prints one marker line on stdout (workerd and
 * Node alike); `tools/reliability.ts` collects them into `.toolgate/reliability.json` and the
 * final table. A figure is printed before its assertions, so a failing check still shows it.
 */
export const FIGURE_MARKER = "@@toolgate-figure ";

/** One row of the final table. */
export interface Figure {
  id: string;
  check: string;
  figure: string;
  pass: boolean;
  seed?: number;
}

/** Prints one figure (a single line; never put a secret in it). */
export function report(figure: Figure): void {
  console.log(`${FIGURE_MARKER}${JSON.stringify(figure)}`);
}

/** A small, fast, seeded PRNG (mulberry32): the same seed gives the same inputs. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The seed of a check: `TOOLGATE_SEED` if set, otherwise the check's fixed default. */
export function seedOf(fallback: number): number {
  const raw = typeof process !== "undefined" ? process.env?.TOOLGATE_SEED : undefined;
  const parsed = raw === undefined ? Number.NaN : Number(raw);
  return Number.isInteger(parsed) ? parsed : fallback;
}

/** Percentile (nearest rank) of a sorted array of numbers. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

/** Credentials have one shape; any full credential in a log or a foreign answer is a leak. */
export const CREDENTIAL_PATTERN = /tg_(?:agent|approver|provider|runtime|auditor)_[0-9A-Za-z]{40}_[0-9A-Za-z]{6}/g;

/** Prefix of argument canaries (secret-looking values seeded through the suite). */
export const CANARY_PREFIX = "zzcanary";
