// The package's declarations as a consumer's compiler sees them: the package built and packed,
// `attw` (are-the-types-wrong) over the tarball, and the tarball unpacked into a scratch project
// type-checked with tsc under NodeNext, Node16 and Bundler resolution (strict, `skipLibCheck`).
// The samples of test/package/consumer/ are files that must compile and wrong ones that must
// fail, each on the line marked `// error TSnnnn` with exactly that code: a declaration that no
// longer resolves turns the client's types into `any`, and the wrong files then compile.
import { execFile } from "node:child_process";
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { buildPackage } from "./build-package.ts";
import { ROOT } from "./paths.ts";

const SAMPLES = join(ROOT, "test", "package", "consumer");
const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");
const ATTW = join(ROOT, "node_modules", "@arethetypeswrong", "cli", "dist", "index.js");

/** The resolutions a consumer may use, with the `module` each requires. */
const RESOLUTIONS = [
  { moduleResolution: "NodeNext", module: "NodeNext" },
  { moduleResolution: "Node16", module: "Node16" },
  { moduleResolution: "Bundler", module: "ESNext" },
] as const;

interface Ran {
  code: number;
  stdout: string;
  /** stdout and stderr. */
  output: string;
}

/** The environment of child processes: no `npm_*` variables of an enclosing `npm test`. */
const childEnv = (): NodeJS.ProcessEnv =>
  Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith("npm_")));

/** Runs a command to completion; answers its exit code and output (never throws on a failed exit). */
function run(command: string, args: readonly string[], cwd: string, timeoutMs = 60_000): Promise<Ran> {
  return new Promise((done) => {
    execFile(
      command,
      args,
      { cwd, env: childEnv(), timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1;
        const killed = error?.killed === true ? `\n(stopped after ${timeoutMs} ms)` : "";
        done({ code, stdout, output: stdout + stderr + killed });
      },
    );
  });
}

/** `file:line TSnnnn` of each error a sample expects (its `// error TSnnnn` markers). */
export function expectedErrors(file: string, text: string): string[] {
  return text.split("\n").flatMap((line, index) => {
    const marker = /\/\/ error (TS\d+)\s*$/.exec(line);
    return marker === null ? [] : [`${file}:${index + 1} ${marker[1]}`];
  });
}

/**
 * `file:line TSnnnn` of each error in tsc's plain output (`--pretty false`); any other line that
 * is not the indented continuation of a message is kept whole, so it fails the comparison.
 */
export function reportedErrors(output: string): string[] {
  return output
    .split("\n")
    .filter((line) => line.trim() !== "" && !/^\s/.test(line))
    .map((line) => {
      const error = /^(.+?)\((\d+),\d+\): error (TS\d+):/.exec(line);
      return error === null ? line : `${error[1]}:${error[2]} ${error[3]}`;
    });
}

/** Unpacks the tarball as node_modules/toolgate and links its dependencies from this repository's install. */
async function installTarball(tarball: string, app: string): Promise<void> {
  const target = join(app, "node_modules", "toolgate");
  mkdirSync(target, { recursive: true });
  const untar = await run("tar", ["-xzf", tarball, "-C", target, "--strip-components=1"], app);
  if (untar.code !== 0) throw new Error(`tar could not unpack ${tarball}:\n${untar.output}`);
  // The packed manifest, a file this build just wrote.
  const manifest = JSON.parse(readFileSync(join(target, "package.json"), "utf8")) as {
    dependencies?: Record<string, string>;
    peerDependencies?: Record<string, string>;
  };
  // The lockfile's versions, already installed: no registry, no network. The optional peers too
  // (`ai`, for the toolgate/ai-sdk sample): a consumer of that entry installs them.
  for (const name of Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies })) {
    const link = join(app, "node_modules", name);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(join(ROOT, "node_modules", name), link, "dir");
  }
}

/** One resolution's verdict. */
interface Checked {
  readonly resolution: string;
  readonly ok: boolean;
  readonly lines: readonly string[];
}

/** Type-checks every sample under one resolution; compares the errors with the markers exactly. */
async function checkResolution(
  app: string,
  samples: readonly string[],
  expected: readonly string[],
  resolution: (typeof RESOLUTIONS)[number],
): Promise<Checked> {
  const config = `tsconfig.${resolution.moduleResolution.toLowerCase()}.json`;
  writeFileSync(
    join(app, config),
    `${JSON.stringify(
      {
        compilerOptions: {
          target: "ES2022",
          module: resolution.module,
          moduleResolution: resolution.moduleResolution,
          lib: ["ES2023", "DOM"],
          types: [],
          strict: true,
          skipLibCheck: true,
          noEmit: true,
        },
        files: samples,
      },
      null,
      2,
    )}\n`,
  );
  const tsc = await run(process.execPath, [TSC, "-p", config, "--pretty", "false"], app, 120_000);
  const reported = reportedErrors(tsc.output).sort();
  const want = [...expected].sort();
  const missing = want.filter((e) => !reported.includes(e));
  const unexpected = reported.filter((e) => !want.includes(e));
  const ok = missing.length === 0 && unexpected.length === 0 && tsc.code === (want.length === 0 ? 0 : 2);
  const lines = ok
    ? [`${resolution.moduleResolution}: ${samples.length} files, errors as expected (${want.join(", ")})`]
    : [
        `${resolution.moduleResolution}: FAILED (tsc exit ${tsc.code})`,
        ...missing.map((e) => `  missing    ${e}`),
        ...unexpected.map((e) => `  unexpected ${e}`),
        tsc.output,
      ];
  return { resolution: resolution.moduleResolution, ok, lines };
}

/** `attw --profile esm-only` over the tarball: the package is ESM only (`exports` has `import`, no `require`). */
async function checkAttw(tarball: string, cwd: string): Promise<Checked> {
  const attw = await run(process.execPath, [ATTW, "--profile", "esm-only", "--no-color", tarball], cwd, 120_000);
  const ok = attw.code === 0;
  return {
    resolution: "attw",
    ok,
    lines: ok ? ["attw --profile esm-only: no problems"] : ["attw --profile esm-only: FAILED", attw.output],
  };
}

/**
 * Builds (unless `build` is false), packs and checks the package; prints one line per check and
 * answers whether all passed.
 */
export async function checkPackage({ build = true }: { build?: boolean } = {}): Promise<boolean> {
  const started = Date.now();
  if (build) await buildPackage();
  const dir = mkdtempSync(join(tmpdir(), "toolgate-package-check-"));
  try {
    // Built just above: the pack itself runs no script (prepack would build a second time).
    const pack = await run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", dir], ROOT);
    if (pack.code !== 0) throw new Error(`npm pack failed:\n${pack.output}`);
    // npm's own report of the tarball it just wrote.
    const [info] = JSON.parse(pack.stdout) as Array<{ filename: string }>;
    if (info === undefined) throw new Error(`npm pack answered no tarball: ${pack.output}`);
    const tarball = join(dir, info.filename);

    const app = join(dir, "consumer");
    mkdirSync(app);
    // ESM, as the package is: under Node16/NodeNext a CommonJS file could not import it.
    writeFileSync(
      join(app, "package.json"),
      `${JSON.stringify({ name: "consumer", private: true, type: "module" })}\n`,
    );
    await installTarball(tarball, app);
    const samples: string[] = [];
    const expected: string[] = [];
    for (const sample of readdirSync(SAMPLES).filter((name) => name.endsWith(".ts.sample"))) {
      const file = sample.replace(/\.sample$/, "");
      copyFileSync(join(SAMPLES, sample), join(app, file));
      samples.push(file);
      expected.push(...expectedErrors(file, readFileSync(join(SAMPLES, sample), "utf8")));
    }
    if (!samples.includes("correct.ts") || expected.length < 3)
      throw new Error(`${SAMPLES} lacks correct.ts.sample or three expected errors`);

    const checked = await Promise.all([
      checkAttw(tarball, dir),
      ...RESOLUTIONS.map((resolution) => checkResolution(app, samples, expected, resolution)),
    ]);
    for (const check of checked) process.stdout.write(`package types: ${check.lines.join("\n")}\n`);
    const ok = checked.every((check) => check.ok);
    process.stdout.write(
      `package types: ${ok ? "ok" : "FAILED"} in ${((Date.now() - started) / 1000).toFixed(1)} s${build ? " (build included)" : ""}\n`,
    );
    return ok;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
