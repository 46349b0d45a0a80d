// The feature registry's index (src/worker/features/index.ts), written from the folders: every
// folder of src/worker/features/ that holds a `feature.ts` (exporting `feature`) is registered,
// in folder-name order. Nobody edits the index by hand; `npm run gen:features` writes it, `npm start`
// and `npm test` refresh it, and `npm run lint` fails when the committed one is stale.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { format, resolveConfig } from "prettier";
import { ROOT } from "./paths.ts";

export const FEATURES_DIR = join(ROOT, "src", "worker", "features");
export const FEATURES_INDEX = join(FEATURES_DIR, "index.ts");

/** The folders that hold a feature, in the order they are registered. */
export function featureFolders(): string[] {
  return readdirSync(FEATURES_DIR, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(FEATURES_DIR, entry.name, "feature.ts")))
    .map((entry) => entry.name)
    .sort();
}

/** An identifier for a folder name (`tool-calls` → `toolCalls`). */
function identifier(folder: string): string {
  return `${folder.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase())}Feature`;
}

/** The index's text for the folders, formatted as the format check wants it. */
export async function featuresIndexText(folders: readonly string[] = featureFolders()): Promise<string> {
  const imports = folders.map((f) => `import { feature as ${identifier(f)} } from "./${f}/feature";`);
  const text = [
    "// Written by `npm run gen:features` from the folders that hold a feature.ts: do not edit.",
    '// A new feature is a folder with its feature.ts (docs/architecture.md, "Where things go").',
    'import type { Feature } from "../kernel/feature";',
    ...imports,
    "",
    "/** Every feature folder's registration, in folder-name order. */",
    `export const FEATURE_FOLDERS: readonly Feature[] = [${folders.map(identifier).join(", ")}];`,
    "",
  ].join("\n");
  const options = (await resolveConfig(FEATURES_INDEX)) ?? {};
  return format(text, { ...options, filepath: FEATURES_INDEX });
}

/** Writes the index when it differs; answers whether it changed. */
export async function writeFeaturesIndex(): Promise<boolean> {
  const text = await featuresIndexText();
  const current = existsSync(FEATURES_INDEX) ? readFileSync(FEATURES_INDEX, "utf8") : "";
  if (current === text) return false;
  writeFileSync(FEATURES_INDEX, text);
  return true;
}

/** Whether the index on disk is what the folders give. */
export async function featuresIndexCurrent(): Promise<boolean> {
  return existsSync(FEATURES_INDEX) && readFileSync(FEATURES_INDEX, "utf8") === (await featuresIndexText());
}
