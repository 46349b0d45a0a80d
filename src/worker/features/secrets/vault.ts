import { hkdf } from "@noble/hashes/hkdf.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { utf8ToBytes } from "@noble/hashes/utils.js";
import { SecretStore, type SealedSecret } from "./store";

/** Shortest `TOOLGATE_SECRETS_KEY` accepted; shorter (or none) stores no secret. */
export const MIN_SECRETS_KEY_CHARS = 32;
/** Secrets a consumer may hold. */
export const MAX_SECRETS = 64;

/**
 * Write-only consumer secrets (`PUT …/secrets/{name}`), referenced by tool targets' secret
 * headers. Each is sealed with AES-256-GCM under a key derived per consumer (HKDF-SHA-256) from
 * the Worker secret `TOOLGATE_SECRETS_KEY`, with the consumer and the secret's name as
 * associated data, so a ciphertext copied to another row or consumer does not open. Values are
 * never answered, logged or audited.
 */
export class SecretVault {
  readonly #table: SecretStore;
  #key: Promise<CryptoKey> | undefined;

  constructor(
    sql: SqlStorage,
    private readonly consumer: () => string,
    private readonly keyText: string | undefined,
  ) {
    this.#table = new SecretStore(sql);
  }

  /** Whether the Worker has a key to seal secrets with. */
  get enabled(): boolean {
    return this.keyText !== undefined && this.keyText.length >= MIN_SECRETS_KEY_CHARS;
  }

  /**
   * The consumer's key, derived and imported once per object (the consumer's name and the Worker
   * secret are fixed for its life): HKDF in JavaScript on every seal and open cost more than the
   * AES-GCM itself.
   */
  #cryptoKey(): Promise<CryptoKey> {
    if (!this.enabled || this.keyText === undefined) throw new Error("the secrets key is not configured");
    if (this.#key === undefined) {
      const raw = hkdf(
        sha256,
        utf8ToBytes(this.keyText),
        utf8ToBytes("toolgate secrets v1"),
        utf8ToBytes(this.consumer()),
        32,
      );
      this.#key = crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt", "decrypt"]);
    }
    return this.#key;
  }

  #aad(name: string): Uint8Array {
    return utf8ToBytes(`${this.consumer()}\n${name}`);
  }

  /** Seals a value (async); store it with {@link store} inside a transaction. */
  async seal(name: string, value: string): Promise<SealedSecret> {
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const ciphertext = await crypto.subtle.encrypt(
      { name: "AES-GCM", iv, additionalData: this.#aad(name) },
      await this.#cryptoKey(),
      utf8ToBytes(value),
    );
    return { iv, ciphertext: new Uint8Array(ciphertext) };
  }

  store(name: string, sealed: SealedSecret, now: number): void {
    this.#table.put(name, sealed, now);
  }

  has(name: string): boolean {
    return this.#table.has(name);
  }

  names(): string[] {
    return this.#table.names();
  }

  delete(name: string): boolean {
    return this.#table.delete(name);
  }

  /** Opens a stored secret; `undefined` if it is missing or does not open (another key). */
  async open(name: string): Promise<string | undefined> {
    const sealed = this.#table.get(name);
    return sealed === undefined ? undefined : this.unseal(name, sealed);
  }

  /**
   * Opens a value sealed under `name` that another service stores itself (a webhook endpoint's
   * signing secret, under a name no consumer secret can have); `undefined` if it does not open.
   */
  async unseal(name: string, sealed: SealedSecret): Promise<string | undefined> {
    if (!this.enabled) return undefined;
    try {
      const plain = await crypto.subtle.decrypt(
        { name: "AES-GCM", iv: sealed.iv, additionalData: this.#aad(name) },
        await this.#cryptoKey(),
        sealed.ciphertext,
      );
      return new TextDecoder().decode(plain);
    } catch {
      return undefined;
    }
  }
}
