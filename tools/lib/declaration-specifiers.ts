// The sources import each other the Bundler way (`./x`, a folder's `./x`), and tsc copies those
// specifiers into the declarations as written. Node16 and NodeNext resolution need the real file
// (`./x.js`, `./x/index.js`); without it every type behind such an import silently becomes `any`
// in a consumer with `skipLibCheck`. So the emitted `.d.ts` files get their relative specifiers
// rewritten to the declaration file that exists next to them, and the build fails on one that
// names no file.
import { readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

const RELATIVE = /^\.\.?(\/|$)/;

/** A relative specifier that names no emitted declaration. */
export interface Unresolved {
  /** The declaration file, relative to the folder given. */
  readonly file: string;
  readonly specifier: string;
}

/** What {@link fullySpecifyDeclarations} did. */
export interface FullySpecified {
  readonly files: number;
  readonly rewritten: number;
  readonly unresolved: readonly Unresolved[];
}

const isFile = (path: string): boolean => {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
};

/**
 * The fully specified form of `specifier` (relative, in the declaration file `from`): the `.js`
 * path whose `.d.ts` exists, as Node16/NodeNext look it up; undefined when none exists.
 */
export function fullySpecified(specifier: string, from: string): string | undefined {
  const target = resolve(dirname(from), specifier);
  // Already a file: `./x.js` stays when `./x.d.ts` is there; a `.ts` import gets its `.js` form.
  const explicit = /\.([cm]?)[jt]s$/.exec(specifier);
  if (explicit !== null && !specifier.endsWith(".d.ts")) {
    const flavour = explicit[1] ?? "";
    const stem = specifier.slice(0, -explicit[0].length);
    if (isFile(`${resolve(dirname(from), stem)}.d.${flavour}ts`)) return `${stem}.${flavour}js`;
  }
  const bare = specifier.replace(/\/$/, "");
  if (isFile(`${target}.d.ts`) && bare !== "." && bare !== "..") return `${bare}.js`;
  if (isFile(join(target, "index.d.ts"))) return `${bare}/index.js`;
  return undefined;
}

/** The string literals of a declaration file that name a module: imports, exports, `import("…")` types, augmentations. */
function moduleSpecifiers(source: ts.SourceFile): ts.StringLiteralLike[] {
  const found: ts.StringLiteralLike[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier !== undefined) {
      if (ts.isStringLiteralLike(node.moduleSpecifier)) found.push(node.moduleSpecifier);
    } else if (ts.isImportTypeNode(node)) {
      const argument = node.argument;
      if (ts.isLiteralTypeNode(argument) && ts.isStringLiteralLike(argument.literal)) found.push(argument.literal);
    } else if (ts.isModuleDeclaration(node) && ts.isStringLiteralLike(node.name)) {
      found.push(node.name);
    } else if (ts.isExternalModuleReference(node) && ts.isStringLiteralLike(node.expression)) {
      found.push(node.expression);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The `.d.ts` files under `dir`, recursively. */
function declarationFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return declarationFiles(path);
    return entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

/**
 * Rewrites, in place, every relative module specifier of the `.d.ts` files under `dir` to its
 * fully specified form; answers the counts and the specifiers that resolve to no file (those are
 * left as they were: the caller fails the build on them).
 */
export function fullySpecifyDeclarations(dir: string): FullySpecified {
  const files = declarationFiles(dir);
  const unresolved: Unresolved[] = [];
  let rewritten = 0;
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const edits: Array<{ start: number; end: number; value: string }> = [];
    for (const literal of moduleSpecifiers(source)) {
      if (!RELATIVE.test(literal.text)) continue;
      const value = fullySpecified(literal.text, file);
      if (value === undefined) unresolved.push({ file: relative(dir, file), specifier: literal.text });
      // Inside the quotes, which stay as tsc wrote them.
      else if (value !== literal.text) edits.push({ start: literal.getStart(source) + 1, end: literal.end - 1, value });
    }
    if (edits.length === 0) continue;
    let out = text;
    for (const edit of edits.sort((a, b) => b.start - a.start))
      out = out.slice(0, edit.start) + edit.value + out.slice(edit.end);
    writeFileSync(file, out);
    rewritten += edits.length;
  }
  return { files: files.length, rewritten, unresolved };
}
