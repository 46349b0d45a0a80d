// The credentials `npm start` issued. Their ids (never a secret) are kept in the state folder, in
// a 0600 JSON file, so that the next start revokes them before it issues new ones: a secret
// printed by an earlier start stops working instead of staying valid for as long as the state.
import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The file, in the state folder, that names the credentials the last start issued. */
export const ISSUED_FILE = "npm-start-credentials.json";

/** The path of {@link ISSUED_FILE} in `stateDir`. */
export const issuedPath = (stateDir: string): string => join(stateDir, ISSUED_FILE);

const CONSUMER = /^[A-Za-z0-9._~-]{1,128}$/;
const CREDENTIAL_ID = /^cred_[0-9A-Za-z]{16}$/;

/**
 * The `{ consumer, credential_id }` pairs recorded at `path` ([] when there is no file). Throws on
 * a file npm start did not write as it is: what it would have to revoke is then unknown.
 */
export function readIssued(path: string): Issued[] {
  if (!existsSync(path)) return [];
  let value: unknown = null;
  try {
    // Checked field by field below.
    value = JSON.parse(readFileSync(path, "utf8"));
  } catch {
    // not JSON: refused below
  }
  const list: unknown =
    value !== null && typeof value === "object" && Object.keys(value).join() === "credentials"
      ? (value as { credentials: unknown }).credentials
      : null;
  const valid = Array.isArray(list) && list.every(isIssued);
  if (!valid)
    throw new Error(
      `${path} is not the list of credentials npm start issued; revoke them with the admin API (GET and DELETE /v1/consumers/{consumer}/credentials), then delete the file`,
    );
  return list.map(({ consumer, credential_id }: Issued) => ({ consumer, credential_id }));
}

/** Writes the pairs to `path` with mode 0600, whole or not at all (a temporary file renamed over it). */
export function writeIssued(path: string, issued: readonly Issued[]): void {
  const temp = `${path}.tmp`;
  writeFileSync(temp, `${JSON.stringify({ credentials: issued }, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temp, 0o600);
  renameSync(temp, path);
}

/**
 * Revokes every credential recorded at `path` through the admin API (`call`, from wrangler-dev.ts); one
 * already revoked, or gone with a deleted state, answers 404 and is done too. The record is emptied
 * only once all are revoked, so a failed start retries them. Answers how many were recorded.
 */
export async function revokeIssued({ base, admin, path, call }: AdminAccess & { path: string }): Promise<number> {
  const issued = readIssued(path);
  for (const { consumer, credential_id: id } of issued) {
    await call(
      base,
      "DELETE",
      `/v1/consumers/${encodeURIComponent(consumer)}/credentials/${id}`,
      admin,
      undefined,
      [204, 404],
    );
  }
  writeIssued(path, []);
  return issued.length;
}

/**
 * A `mint(consumer, body)` that issues a credential through the admin API and records its id at
 * `path` before answering its secret, so no credential this start prints is left out of the record.
 */
export function recordingMint({
  base,
  admin,
  path,
  call,
}: AdminAccess & { path: string }): (consumer: string, body: Record<string, unknown>) => Promise<string> {
  const issued = readIssued(path);
  return async (consumer, body) => {
    const created = await call(base, "POST", `/v1/consumers/${encodeURIComponent(consumer)}/credentials`, admin, body);
    if (!isCreated(created)) throw new Error(`POST /v1/consumers/${consumer}/credentials answered no credential`);
    issued.push({ consumer, credential_id: created.credential_id });
    writeIssued(path, issued);
    return created.secret;
  };
}

/** One credential npm start issued. */
export interface Issued {
  consumer: string;
  credential_id: string;
}

function isIssued(e: unknown): e is Issued {
  if (e === null || typeof e !== "object" || Object.keys(e).join() !== "consumer,credential_id") return false;
  const { consumer, credential_id } = e as Record<string, unknown>;
  return (
    typeof consumer === "string" &&
    typeof credential_id === "string" &&
    CONSUMER.test(consumer) &&
    CREDENTIAL_ID.test(credential_id)
  );
}

/** The admin API of a running gate: its base URL, the admin token and the caller (wrangler-dev.ts `call`; a test passes a recorder). */
export interface AdminAccess {
  base: string;
  admin: string;
  call(base: string, method: string, path: string, token: string, body?: object, expected?: number[]): Promise<unknown>;
}

function isCreated(value: unknown): value is { credential_id: string; secret: string } {
  if (typeof value !== "object" || value === null) return false;
  const { credential_id, secret } = value as Record<string, unknown>;
  return typeof credential_id === "string" && typeof secret === "string";
}
