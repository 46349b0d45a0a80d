/** The principal, clock and host context the Tool Result unit tests bind their calls with. */
export const principal = { tenant_id: "tenant-a", subject_id: "user-1", roles: [] as string[] };
export const NOW = 1784419200;
export const context = (callId: string, key: string | null = null) => ({
  provider: "openai",
  api_family: "responses",
  adapter_revision: "openai-responses-v1",
  response_id: "resp-1",
  call_id: callId,
  operation_id: "op-1",
  idempotency_key: key,
});
