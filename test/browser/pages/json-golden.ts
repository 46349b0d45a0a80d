import { canonicalJson, digestJson, readJson } from "../../../src/core/json";

interface Vectors {
  documents: { input: string; canonical: string; sha256: string }[];
  floats: { lexeme: string; repr: string }[];
}

/** Checks the Python-made golden vectors in the page and reports the mismatch count. */
async function check(): Promise<{ documents: number; floats: number; mismatches: string[] }> {
  const text = await (await fetch("/vectors.json")).text();
  const read = readJson(text, { maxBytes: 16 * 1024 * 1024, domain: false });
  if (!read.ok) throw new Error(read.error.message);
  const vectors = read.value as unknown as Vectors;
  const mismatches: string[] = [];
  for (const v of vectors.documents) {
    const value = readJson(v.input, { maxBytes: 1 << 20 });
    if (!value.ok || canonicalJson(value.value) !== v.canonical || digestJson(value.value) !== v.sha256) {
      mismatches.push(v.input.slice(0, 40));
    }
  }
  for (const f of vectors.floats) {
    const value = readJson(`[${f.lexeme}]`);
    if (!value.ok || canonicalJson(value.value) !== `[${f.repr}]`) mismatches.push(f.lexeme);
  }
  return { documents: vectors.documents.length, floats: vectors.floats.length, mismatches };
}

(globalThis as { toolgateCheck?: typeof check }).toolgateCheck = check;
