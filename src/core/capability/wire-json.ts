/**
 * Lossless JSON writer for the capability wire form: bigint values become bare
 * integers, so u64 values survive over their whole range. Read with
 * `readJson(text, { integers: "bigint" })` from the shared JSON module.
 * @module
 */

function writeString(value: string): string {
  return JSON.stringify(value);
}

/**
 * Writes plain data (objects, arrays, strings, booleans, null, safe integers and bigints)
 * as compact JSON. Undefined object members are skipped; other values are bugs.
 */
export function writeWireJson(value: unknown): string {
  const parts: string[] = [];
  write(value, parts);
  return parts.join("");
}

function write(value: unknown, out: string[]): void {
  switch (typeof value) {
    case "bigint":
      out.push(value.toString());
      return;
    case "number":
      if (!Number.isFinite(value)) throw new TypeError(`cannot write non-finite number ${value}`);
      out.push(Object.is(value, -0) ? "0" : String(value));
      return;
    case "string":
      out.push(writeString(value));
      return;
    case "boolean":
      out.push(value ? "true" : "false");
      return;
    case "object":
      if (value === null) {
        out.push("null");
        return;
      }
      if (Array.isArray(value)) {
        out.push("[");
        value.forEach((item, index) => {
          if (index > 0) out.push(",");
          write(item, out);
        });
        out.push("]");
        return;
      }
      {
        out.push("{");
        let first = true;
        for (const key of Object.keys(value)) {
          const member = (value as Record<string, unknown>)[key];
          if (member === undefined) continue;
          if (!first) out.push(",");
          first = false;
          out.push(writeString(key), ":");
          write(member, out);
        }
        out.push("}");
      }
      return;
    default:
      throw new TypeError(`cannot write ${typeof value} as JSON`);
  }
}

/** Pretty form of {@link writeWireJson} (two-space indent), for CLI output. */
export function writeWireJsonPretty(value: unknown, indent = ""): string {
  if (value === null || typeof value !== "object") return writeWireJson(value);
  const inner = indent + "  ";
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    // Byte vectors stay on one line: one number per line would bury the outcome.
    if (value.every((item) => typeof item === "number" || typeof item === "bigint")) return writeWireJson(value);
    return `[\n${value.map((item) => inner + writeWireJsonPretty(item, inner)).join(",\n")}\n${indent}]`;
  }
  const keys = Object.keys(value).filter((key) => (value as Record<string, unknown>)[key] !== undefined);
  if (keys.length === 0) return "{}";
  const members = keys.map(
    (key) => `${inner}${writeString(key)}: ${writeWireJsonPretty((value as Record<string, unknown>)[key], inner)}`,
  );
  return `{\n${members.join(",\n")}\n${indent}}`;
}
