import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

/** The Debian Chromium binary (or CHROMIUM_PATH), so no browser download is ever needed. */
export function chromiumPath(): string {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv !== undefined && existsSync(fromEnv)) return fromEnv;
  for (const name of ["chromium", "chromium-browser"]) {
    try {
      return execFileSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" }).trim();
    } catch {
      // try the next name
    }
  }
  throw new Error("Chromium is not installed: apt-get install -y chromium (or set CHROMIUM_PATH)");
}

/** Launches headless Chromium with the flags a CI container needs. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
}
