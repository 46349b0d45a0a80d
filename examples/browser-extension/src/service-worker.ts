/**
 * The extension's service worker: holds the browser profile's one provider attachment (so
 * however many tabs are open, the gate sees one provider) and answers its effects.
 *
 * Listeners are added at the top level, as the browser wakes a stopped worker only for the
 * events it registered in its first run: the browser's start, the periodic alarm, a change
 * of the settings, a click on the toolbar button.
 * @module
 */
import { answerEffect } from "./answer";
import { Attachment } from "./attachment";
import { chrome } from "./chrome";
import { SETTINGS_KEY, STATUS_KEY, storedSettings, type ProviderStatus } from "./settings";

/** The alarm that wakes a stopped worker to attach again (30 s is the shortest period Chrome 120+ allows). */
const WAKE_ALARM = "toolgate-wake";

/** The badge for each state: empty while attached, otherwise a short word. */
const BADGES: Record<ProviderStatus["state"], { text: string; color: string }> = {
  attached: { text: "", color: "#1a7f37" },
  connecting: { text: "…", color: "#6e7781" },
  waiting: { text: "off", color: "#cf222e" },
  unconfigured: { text: "set", color: "#9a6700" },
};

function report(status: ProviderStatus): void {
  void chrome.storage.session.set({ [STATUS_KEY]: status });
  void chrome.action.setBadgeText({ text: BADGES[status.state].text });
  void chrome.action.setBadgeBackgroundColor({ color: BADGES[status.state].color });
}

const attachment = new Attachment({
  settings: async () => storedSettings((await chrome.storage.local.get(SETTINGS_KEY))[SETTINGS_KEY]),
  onEffect: answerEffect,
  report,
});

chrome.runtime.onStartup.addListener(() => attachment.ensure());
chrome.runtime.onInstalled.addListener(() => attachment.ensure());
chrome.alarms.onAlarm.addListener((alarm) => {
  if (alarm.name === WAKE_ALARM) attachment.ensure();
});
chrome.storage.onChanged.addListener((changes, areaName) => {
  if (areaName === "local" && SETTINGS_KEY in changes) attachment.restart();
});
// The click itself grants `activeTab` on that tab; unconfigured, it opens the settings.
chrome.action.onClicked.addListener(() => {
  void chrome.storage.local.get(SETTINGS_KEY).then((stored) => {
    if (storedSettings(stored[SETTINGS_KEY]) === null) void chrome.runtime.openOptionsPage();
  });
});

void chrome.alarms.get(WAKE_ALARM).then((alarm) => {
  if (alarm === undefined) void chrome.alarms.create(WAKE_ALARM, { periodInMinutes: 0.5 });
});
attachment.ensure();
