import { canonicalJson } from "../../core/json";
import { all, int, one, run, text } from "./sql";

/** The consumer's map from App Facade target to tool name, and its revision. */
export interface FacadeTargets {
  targets: ReadonlyMap<string, string>;
  /** Starts at 0; every `PUT …/runtime/facade-targets` adds one. Prepared actions carry it. */
  revision: number;
}

/** Reads the map (empty, revision 0, until an admin sets one). */
export function loadFacadeTargets(sql: SqlStorage): FacadeTargets {
  const targets = new Map<string, string>();
  for (const row of all(sql, "SELECT target, tool FROM runtime_facade_targets ORDER BY target")) targets.set(text(row, "target"), text(row, "tool"));
  const rev = one(sql, "SELECT value FROM runtime_settings WHERE key = 'facade_targets_revision'");
  return { targets, revision: rev === undefined ? 0 : int(rev, "value") };
}

/** Replaces the whole map and bumps its revision; run inside the caller's transaction. */
export function saveFacadeTargets(sql: SqlStorage, targets: Readonly<Record<string, string>>): FacadeTargets {
  run(sql, "DELETE FROM runtime_facade_targets");
  for (const [target, tool] of Object.entries(targets)) run(sql, "INSERT INTO runtime_facade_targets (target, tool) VALUES (?, ?)", target, tool);
  run(
    sql,
    "INSERT INTO runtime_settings (key, value) VALUES ('facade_targets_revision', 1) ON CONFLICT (key) DO UPDATE SET value = value + 1",
  );
  return loadFacadeTargets(sql);
}

/** The canonical JSON view answered by the admin routes. */
export function facadeTargetsJson(value: FacadeTargets): string {
  return canonicalJson({ targets: Object.fromEntries(value.targets), revision: value.revision });
}
