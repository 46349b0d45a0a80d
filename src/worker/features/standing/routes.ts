import {
  StandingApprovalGrant,
  StandingApprovalId,
  StandingApprovalList,
  StandingApprovalView,
} from "../../../contracts/standing-approval";
import { problem, problemResponse } from "../../http/problem";
import { credentialToken, jsonBody } from "../../http/middleware";
import { respond, sendBody } from "../../http/respond";
import { handlers, pathParam, type RouteModule } from "../../http/route";
import { DOCS } from "../../../contracts/docs";

const P = "/v1/consumers/{consumer}/standing-approvals";

/** Approver routes of standing approvals (docs/approvals.md, "Standing approvals"): grant, list, revoke. */
export const standingRoutes: RouteModule = {
  routes: [
    {
      method: "post",
      path: P,
      summary: DOCS
        ? "Grant a standing approval: the subject's calls of the tool run without a per-call decision until `seconds` pass or `max_calls` were used, each only when the `constraint` (CEL) admits its exact arguments. Within the consumer's `standing_approvals` setting; never for the approver's own subject."
        : "",
      operation: "grantStanding",
      auth: "credential",
      request: StandingApprovalGrant,
      response: {
        status: 201,
        schema: StandingApprovalView,
        description: DOCS ? "The standing approval granted." : "",
      },
      problems: [
        "UNAUTHENTICATED",
        "FORBIDDEN",
        "APPROVER_NOT_ALLOWED",
        "STANDING_APPROVAL_NOT_ALLOWED",
        "SELF_APPROVAL_FORBIDDEN",
        "QUOTA_EXCEEDED",
        "NOT_FOUND",
        "INVALID_JSON",
        "INVALID_REQUEST",
        "BODY_TOO_LARGE",
        "UNSUPPORTED_MEDIA_TYPE",
      ],
      handlers: handlers(jsonBody(StandingApprovalGrant), (c) =>
        sendBody(
          c.var.body,
          (request) =>
            c.var.object.standingCall(c.var.consumer, credentialToken(c.var.token), { kind: "grantStanding", request }),
          201,
        ),
      ),
    },
    {
      method: "get",
      path: P,
      summary: DOCS
        ? "The consumer's standing approvals, newest first (at most 100), each with its state and calls used."
        : "",
      operation: "listStanding",
      auth: "credential",
      response: { status: 200, schema: StandingApprovalList, description: DOCS ? "The standing approvals." : "" },
      problems: ["UNAUTHENTICATED", "FORBIDDEN", "APPROVER_NOT_ALLOWED", "NOT_FOUND"],
      handlers: handlers(async (c) =>
        respond(
          await c.var.object.standingCall(c.var.consumer, credentialToken(c.var.token), { kind: "listStanding" }),
        ),
      ),
    },
    {
      method: "delete",
      path: `${P}/{standing_approval_id}`,
      summary: DOCS
        ? "Revoke a standing approval (any approver of the consumer may): the next call it would have covered needs a per-call approval again. Revoking a revoked one answers it unchanged."
        : "",
      operation: "revokeStanding",
      auth: "credential",
      response: {
        status: 200,
        schema: StandingApprovalView,
        description: DOCS ? "The standing approval, revoked." : "",
      },
      problems: ["UNAUTHENTICATED", "FORBIDDEN", "APPROVER_NOT_ALLOWED", "NOT_FOUND"],
      handlers: handlers(async (c) => {
        const id = pathParam(c, "standing_approval_id");
        if (!StandingApprovalId.safeParse(id).success)
          return problemResponse(problem("NOT_FOUND", "No such standing approval."));
        return respond(
          await c.var.object.standingCall(c.var.consumer, credentialToken(c.var.token), {
            kind: "revokeStanding",
            standingId: id,
          }),
        );
      }),
    },
  ],
};
