/**
 * Tools as data whose target is the ledger downstream of the worker tests (https://ledger.test,
 * test/support/ledger-service.ts): a read and a write that may need a human, shared by the
 * test files that define them as they are.
 */

/** `lookup_customer`: a read of a customer's tier. */
export const LOOKUP = {
  description: "Look up a customer's tier.",
  risk: "read",
  input: {
    type: "object",
    properties: { customer: { type: "string", minLength: 1, maxLength: 8 } },
    required: ["customer"],
    additionalProperties: false,
  },
  output: {
    schema: {
      type: "object",
      properties: { customer: { type: "string" }, tier: { type: "string", enum: ["gold", "silver"] } },
      required: ["customer", "tier"],
      additionalProperties: false,
    },
    bound_to_arguments: { customer: "customer" },
  },
  target: { kind: "http", url: "https://ledger.test/customers/lookup" },
};

/** `create_invoice`: a write that asks a human above 100, reconciled through its status and fence URLs. */
export const INVOICE = {
  description: "Create an invoice.",
  risk: "write",
  input: {
    type: "object",
    properties: {
      customer: { type: "string", minLength: 1, maxLength: 8 },
      amount: { type: "integer", minimum: 1, maximum: 100_000 },
    },
    required: ["customer", "amount"],
    additionalProperties: false,
  },
  output: {
    schema: {
      type: "object",
      properties: {
        invoice_id: { type: "string", maxLength: 16, pattern: "^INV-[0-9]+$" },
        customer: { type: "string" },
        amount: { type: "integer" },
      },
      required: ["invoice_id", "customer", "amount"],
      additionalProperties: false,
    },
    bound_to_arguments: { customer: "customer", amount: "amount" },
  },
  approval: "args.amount > 100",
  target: {
    kind: "http",
    url: "https://ledger.test/invoices",
    status_url: "https://ledger.test/invoices/status/{status_ref}",
    fence_url: "https://ledger.test/invoices/status/{status_ref}/fence",
  },
};
