/**
 * The options page: edits the settings in `chrome.storage.local` (the service worker attaches
 * again as soon as they change), asks for the optional sites the provider may read, and shows
 * the provider's status. The credential field is never filled back in.
 * @module
 */
import { chrome } from "./chrome";
import {
  checkSettings,
  SETTINGS_KEY,
  STATUS_KEY,
  sitePatterns,
  storedSettings,
  storedStatus,
  type Settings,
  type SettingsInput,
} from "./settings";

/** The parts of DOM elements the page uses (structural: no DOM typings needed). */
interface Field {
  value: string;
  placeholder: string;
  setAttribute(name: string, value: string): void;
  focus(): void;
}
interface Text {
  textContent: string | null;
}
interface Clickable {
  addEventListener(type: "click", listener: () => void): void;
}

const page = (globalThis as unknown as { document: { getElementById(id: string): unknown } }).document;

function byId<T>(id: string): T {
  const element = page.getElementById(id);
  if (element === null) throw new Error(`options.html has no #${id}`);
  return element as T;
}

const fields: { readonly [K in keyof Settings]: Field } = {
  gateUrl: byId("gate-url"),
  consumer: byId("consumer"),
  providerId: byId("provider-id"),
  credential: byId("credential"),
};
const sites = byId<Field>("sites");
const granted = byId<Text>("granted");
const message = byId<Text>("message");
const status = byId<Text>("status");

/** The field labels, for messages. */
const LABELS: Record<keyof Settings, string> = {
  gateUrl: "Gate URL",
  consumer: "Consumer",
  providerId: "Provider id",
  credential: "Provider credential",
};

async function showGranted(): Promise<void> {
  const { origins = [] } = await chrome.permissions.getAll();
  const optional = origins.filter((o) => !/^http:\/\/(127\.0\.0\.1|localhost)\/\*$/.test(o));
  granted.textContent = optional.length === 0 ? "" : `Sites it may read: ${optional.join(", ")}`;
}

function showStatus(value: unknown): void {
  const current = storedStatus(value);
  status.textContent = current === null ? "not started yet" : current.detail;
}

async function load(): Promise<void> {
  const stored = storedSettings((await chrome.storage.local.get(SETTINGS_KEY))[SETTINGS_KEY]);
  if (stored !== null) {
    fields.gateUrl.value = stored.gateUrl;
    fields.consumer.value = stored.consumer;
    fields.providerId.value = stored.providerId;
    fields.credential.placeholder = "saved: leave empty to keep it";
  }
  showStatus((await chrome.storage.session.get(STATUS_KEY))[STATUS_KEY]);
  await showGranted();
}

async function save(permission: Promise<boolean> | null): Promise<void> {
  for (const field of Object.values(fields)) field.setAttribute("aria-invalid", "false");
  const stored = storedSettings((await chrome.storage.local.get(SETTINGS_KEY))[SETTINGS_KEY]);
  const input: SettingsInput = {
    gateUrl: fields.gateUrl.value,
    consumer: fields.consumer.value,
    providerId: fields.providerId.value,
    // An empty field keeps the saved credential.
    credential: fields.credential.value === "" ? (stored?.credential ?? "") : fields.credential.value,
  };
  const checked = checkSettings(input);
  if (!checked.ok) {
    fields[checked.error.field].setAttribute("aria-invalid", "true");
    fields[checked.error.field].focus();
    message.textContent = `${LABELS[checked.error.field]}: ${checked.error.message}`;
    return;
  }
  await chrome.storage.local.set({ [SETTINGS_KEY]: checked.value });
  fields.credential.value = "";
  fields.credential.placeholder = "saved: leave empty to keep it";
  const allowed = permission === null ? null : await permission.catch(() => false);
  message.textContent = allowed === false ? "Saved; the sites were not allowed." : "Saved.";
  if (allowed === true) sites.value = "";
  await showGranted();
}

byId<Clickable>("save").addEventListener("click", () => {
  const typed = sitePatterns(sites.value);
  if (!typed.ok) {
    sites.setAttribute("aria-invalid", "true");
    message.textContent = `Not an origin: ${typed.line}`;
    return;
  }
  sites.setAttribute("aria-invalid", "false");
  // Asked at once: the browser grants a permission prompt only within the click.
  const permission = typed.patterns.length === 0 ? null : chrome.permissions.request({ origins: typed.patterns });
  void save(permission).catch(() => {
    message.textContent = "Saving failed.";
  });
});

chrome.storage.onChanged.addListener((changes, areaName) => {
  if (areaName === "session" && STATUS_KEY in changes) showStatus(changes[STATUS_KEY]?.newValue);
});
void load();
