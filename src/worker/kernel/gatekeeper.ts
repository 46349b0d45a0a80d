import { adminMay, type Operation } from "../../contracts/access";
import { problem, UNAUTHENTICATED } from "../http/problem";
import { fail, ok, type Outcome } from "../result";
import type { ConsumerService, ConsumerRecord } from "../features/consumers/service";
import type { CredentialService } from "../features/credentials/service";
import type { Authenticated } from "../features/sockets/upgrade";

/**
 * Who may make an operation of the access table on this consumer: the admin secret (checked
 * by the Worker) or a consumer credential (checked here). Every RPC method of the object asks
 * here first.
 */
export class Gatekeeper {
  constructor(
    private readonly consumer: ConsumerService,
    private readonly credentials: CredentialService,
  ) {}

  /**
   * The consumer an admin-secret operation names. The secret on an operation it may not make is
   * refused before the consumer is looked up, so that refusal is the same 401 whether or not the
   * consumer exists.
   */
  admin(consumer: string, operation: Operation): Outcome<ConsumerRecord> {
    if (!adminMay(operation)) return fail(UNAUTHENTICATED);
    const config = this.consumer.current();
    return config !== undefined && config.name === consumer
      ? ok(config)
      : fail(problem("NOT_FOUND", "No such consumer."));
  }

  /**
   * Authenticates a credential for an operation of the access table. A consumer that does not
   * exist answers as a bad credential would, so a caller cannot probe for consumers.
   */
  authenticate(consumer: string, token: string, operation: Operation): Outcome<Authenticated> {
    const config = this.consumer.current();
    if (config === undefined || config.name !== consumer) return fail(UNAUTHENTICATED);
    const caller = this.credentials.authenticate(token, operation);
    return caller.ok ? ok({ caller: caller.value, config }) : caller;
  }

  /** The admin secret (`token` null) or a credential, for an operation both may make. */
  either(
    consumer: string,
    token: string | null,
    operation: Operation,
  ): Outcome<{ config: ConsumerRecord; caller: Authenticated["caller"] | null }> {
    if (token === null) {
      const config = this.admin(consumer, operation);
      return config.ok ? ok({ config: config.value, caller: null }) : config;
    }
    const auth = this.authenticate(consumer, token, operation);
    return auth.ok ? ok({ config: auth.value.config, caller: auth.value.caller }) : auth;
  }

  /**
   * Whether a credential that authenticated earlier still holds: live (neither revoked nor
   * expired) and, for an approver (`approverId`), its subject still one of the consumer's
   * approvers. A live listener (a wait, a stream) asks before each event it would hear.
   */
  holds(credentialId: string, approverId: string | null): boolean {
    const config = this.consumer.current();
    return (
      config !== undefined &&
      this.credentials.isLive(credentialId) &&
      (approverId === null || config.approverSubjects.includes(approverId))
    );
  }

  /** When a credential expires (Unix seconds; `null`: never): what listens with it ends then. */
  expiresAt(credentialId: string): number | null {
    return this.credentials.expiresAt(credentialId);
  }

  /** An approver credential whose subject is one of the consumer's approvers. */
  approver(
    consumer: string,
    token: string,
    operation: Operation,
  ): Outcome<{ approverId: string; config: ConsumerRecord }> {
    const auth = this.authenticate(consumer, token, operation);
    if (!auth.ok) return auth;
    const subject = auth.value.caller.subjectId;
    if (subject === null || !auth.value.config.approverSubjects.includes(subject)) {
      return fail(problem("APPROVER_NOT_ALLOWED", "This subject is not an approver of the consumer."));
    }
    return ok({ approverId: subject, config: auth.value.config });
  }
}
