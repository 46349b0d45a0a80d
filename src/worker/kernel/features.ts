/**
 * The registry: the kernel's own registration, then every feature folder's (../features/index.ts,
 * written from the folders by `npm run gen:features`). The migrations, the retention sweep, the
 * services, the RPC operations, the alarm, the memory report and the app iterate it.
 * @module
 */
import { FEATURE_FOLDERS } from "../features";
import type { Feature, Services } from "./feature";
import { KERNEL_FEATURE } from "./kernel-feature";

/** Every registration: the kernel's first (its retention sweep runs first when the alarm fires). */
export const FEATURES: readonly Feature[] = [KERNEL_FEATURE, ...FEATURE_FOLDERS];

/** The shared alarm fired (./alarms): each feature's handler in registry order, each idempotent. */
export async function fireAlarm(services: Services): Promise<void> {
  services.kernel.alarms.fired(Date.now());
  for (const feature of FEATURES) {
    const done = feature.alarm?.(services);
    if (done !== undefined) await done;
  }
}
