/**
 * `toolgate admin credentials issue|list|revoke`: a consumer's credentials. The secret of a new
 * credential is printed once, labelled; the list never carries one.
 * @module
 */
import { canonicalJson } from "../core/json";
import { err, ok } from "../core/result";
import type { AdminGroup } from "./admin";
import { intOf, jsonLine, objectOf, textOf, textOrNull, textsOf, usageExit } from "./admin-http";
import { fields, names, table, when } from "./admin-table";

const KINDS = ["agent", "approver", "provider", "runtime", "auditor"];
const PRINCIPALS = ["subject", "host", "token"];
const CREDENTIAL_ID = /^cred_[0-9A-Za-z]{16}$/;
const UNIX_SECONDS = /^[1-9][0-9]{0,11}$/;

/** The verbs of `toolgate admin credentials`. */
export const credentialVerbs: AdminGroup = {
  issue: {
    usage:
      "issue --kind agent|approver|provider|runtime|auditor [--subject S] [--principal subject|host|token] [--role R]... [--tool T]... [--expires-at UNIX_SECONDS]",
    role: "admin",
    consumer: true,
    positionals: 0,
    values: ["kind", "subject", "principal", "expires-at"],
    repeated: ["role", "tool"],
    async run(ctx) {
      const kind = ctx.option("kind");
      if (kind === undefined || !KINDS.includes(kind)) return err(usageExit(`--kind is one of ${KINDS.join(", ")}`));
      const principal = ctx.option("principal");
      if (principal !== undefined && !PRINCIPALS.includes(principal))
        return err(usageExit(`--principal is one of ${PRINCIPALS.join(", ")}`));
      const expires = ctx.option("expires-at");
      if (expires !== undefined && !UNIX_SECONDS.test(expires))
        return err(usageExit(`--expires-at is Unix seconds: ${expires}`));
      const subject = ctx.option("subject");
      const roles = ctx.options("role");
      const tools = ctx.options("tool");
      const request = {
        kind,
        ...(subject === undefined ? {} : { subject_id: subject }),
        ...(principal === undefined ? {} : { principal }),
        ...(roles.length === 0 ? {} : { roles: [...roles] }),
        ...(tools.length === 0 ? {} : { tools: [...tools] }),
        ...(expires === undefined ? {} : { expires_at: Number(expires) }),
      };
      const answer = await ctx.client.json(ctx.at("/credentials"), {
        role: "admin",
        method: "POST",
        body: canonicalJson(request),
      });
      if (!answer.ok) return answer;
      if (ctx.json) return ok(`${answer.value.text}\n`);
      const view = objectOf(answer.value.value);
      // Agent and runtime credentials act for a principal: their mode, roles and tool scope.
      const agent = ["agent", "runtime"].includes(textOf(view, "kind"));
      const toolScope = view?.tools === null ? "all" : names(textsOf(view, "tools"));
      const lines = fields([
        ["credential", textOf(view, "credential_id")],
        ["kind", textOf(view, "kind")],
        ["subject", textOrNull(view, "subject_id") ?? "-"],
        ...(agent
          ? ([
              ["principal", textOrNull(view, "principal") ?? "-"],
              ["roles", names(textsOf(view, "roles"))],
              ["tools", toolScope],
            ] as const)
          : []),
        ["expires", when(intOf(view, "expires_at"))],
        ["secret", textOf(view, "secret")],
      ]);
      return ok(`${lines}The secret is shown this once: store it now (the gate keeps only its SHA-256).\n`);
    },
  },
  list: {
    usage: "list",
    role: "admin",
    consumer: true,
    positionals: 0,
    async run(ctx) {
      const items = await ctx.client.pages(ctx.at("/credentials"), "credentials", "admin");
      if (!items.ok) return items;
      if (ctx.json) return ok(jsonLine(items.value));
      const rows = items.value.map((item) => {
        const c = objectOf(item);
        return [
          textOf(c, "credential_id"),
          textOf(c, "kind"),
          textOrNull(c, "subject_id") ?? "-",
          when(intOf(c, "created_at"), "-"),
          when(intOf(c, "expires_at")),
          when(intOf(c, "revoked_at"), "-"),
        ];
      });
      return ok(table(["ID", "KIND", "SUBJECT", "CREATED", "EXPIRES", "REVOKED"], rows));
    },
  },
  revoke: {
    usage: "revoke ID",
    role: "admin",
    consumer: true,
    positionals: 1,
    async run(ctx) {
      const id = ctx.args[0] ?? "";
      if (!CREDENTIAL_ID.test(id)) return err(usageExit(`not a credential id (cred_ and 16 letters or digits): ${id}`));
      const done = await ctx.client.done(ctx.at(`/credentials/${id}`), { role: "admin", method: "DELETE" });
      if (!done.ok) return done;
      return ok(ctx.json ? jsonLine({ credential_id: id, revoked: true }) : `revoked credential ${id}\n`);
    },
  },
};
