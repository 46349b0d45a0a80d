/**
 * The part of the extension APIs this extension calls, typed structurally (the repository
 * compiles without DOM or `chrome` typings), and the `chrome` global itself.
 * @module
 */

/** An extension event: listeners added at the top level wake the service worker. */
export interface ChromeEvent<Listener> {
  addListener(listener: Listener): void;
}

/** A `chrome.storage` area (`local` survives restarts, `session` lives while the browser runs). */
export interface StorageArea {
  get(keys: string | string[]): Promise<Record<string, unknown>>;
  set(items: Record<string, unknown>): Promise<void>;
}

/** One change of a stored key. */
export interface StorageChange {
  readonly oldValue?: unknown;
  readonly newValue?: unknown;
}

/** A tab as `chrome.tabs.query` answers it. */
export interface Tab {
  readonly id?: number;
  readonly windowId: number;
}

/** What `chrome.scripting.executeScript` answers for each frame it ran in. */
export interface InjectionResult<R> {
  readonly result?: R;
}

/** The extension APIs used here. */
export interface ChromeApi {
  readonly storage: {
    readonly local: StorageArea;
    readonly session: StorageArea;
    readonly onChanged: ChromeEvent<(changes: Record<string, StorageChange>, areaName: string) => void>;
  };
  readonly tabs: {
    query(query: { active: boolean; lastFocusedWindow: boolean }): Promise<Tab[]>;
  };
  readonly scripting: {
    executeScript<A extends unknown[], R>(injection: {
      target: { tabId: number };
      func: (...args: A) => R;
      args: A;
    }): Promise<Array<InjectionResult<R>>>;
  };
  readonly alarms: {
    get(name: string): Promise<{ name: string } | undefined>;
    create(name: string, info: { periodInMinutes: number }): Promise<void>;
    readonly onAlarm: ChromeEvent<(alarm: { name: string }) => void>;
  };
  readonly runtime: {
    openOptionsPage(): Promise<void>;
    readonly onStartup: ChromeEvent<() => void>;
    readonly onInstalled: ChromeEvent<() => void>;
  };
  readonly action: {
    setBadgeText(details: { text: string }): Promise<void>;
    setBadgeBackgroundColor(details: { color: string }): Promise<void>;
    readonly onClicked: ChromeEvent<(tab: Tab) => void>;
  };
  readonly permissions: {
    request(permissions: { origins: string[] }): Promise<boolean>;
    getAll(): Promise<{ origins?: string[] }>;
  };
}

/** The extension APIs (present in the service worker and the extension's own pages). */
export const chrome: ChromeApi = (globalThis as unknown as { chrome: ChromeApi }).chrome;
