// The client's call typed by provider profile: the vendors' own SDK item types pass as
// `provider_item` unchanged, each answer's `provider_output` narrows to its profile's shape
// (checked by `npx tsc --noEmit`, tsconfig.json includes test/), and the body sent keeps the wire
// format with `adapter_revision` derived.
import type { ToolUseBlock } from "@anthropic-ai/sdk/resources/messages";
import type { FunctionCall, Interactions, Part } from "@google/genai";
import type { ChatCompletionMessageFunctionToolCall } from "openai/resources/chat/completions";
import type { ResponseFunctionToolCall } from "openai/resources/responses/responses";
import { describe, expect, expectTypeOf, it } from "vitest";
import { AgentClient } from "../../src/client/agent";
import { ADAPTER_REVISIONS, toolCallBody, type ProfileAnswer, type ProviderOutputs } from "../../src/client/profiles";
import type { ClientResult } from "../../src/client/transport";
import { expectedAdapterRevision, GATE_PROFILES } from "../../src/core/tool-result/constants";

const context = { operation_id: "op-1", response_id: "resp-1" };

/** A client whose fetch records each request body and answers `answer`. */
function recording(answer: object): { agent: AgentClient; bodies: string[] } {
  const bodies: string[] = [];
  const fetch = async (_url: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    bodies.push(typeof init?.body === "string" ? init.body : "");
    return new Response(JSON.stringify(answer), { status: 200, headers: { "content-type": "application/json" } });
  };
  return { agent: new AgentClient({ baseUrl: "https://gate.example", consumer: "acme", token: "t", fetch }), bodies };
}

describe("vendor SDK items as provider_item, as they are", () => {
  it("type-checks each SDK's item type and narrows the answer", () => {
    const agent = new AgentClient({ baseUrl: "https://gate.example", consumer: "acme", token: "t" });
    // Type-level only: the calls are never made.
    const typed = (
      openai: ResponseFunctionToolCall,
      chat: ChatCompletionMessageFunctionToolCall,
      anthropic: ToolUseBlock,
      step: Interactions.FunctionCallStep,
      functionCall: FunctionCall,
      part: Part & { functionCall: FunctionCall },
    ) => {
      const responses = agent.call({ provider: "openai", api_family: "responses", provider_item: openai, context });
      expectTypeOf(responses).toEqualTypeOf<Promise<ClientResult<ProfileAnswer<"openai", "responses">>>>();
      const messages = agent.call({ provider: "anthropic", api_family: "messages", provider_item: anthropic, context });
      expectTypeOf(messages).toEqualTypeOf<Promise<ClientResult<ProfileAnswer<"anthropic", "messages">>>>();
      void agent.call({ provider: "openai", api_family: "chat_completions", provider_item: chat, context });
      void agent.call({ provider: "google", api_family: "interactions", provider_item: step, context });
      void agent.call({ provider: "google", api_family: "generate_content", provider_item: functionCall, context });
      void agent.call({ provider: "google", api_family: "generate_content", provider_item: part, context });
      // @ts-expect-error -- an Anthropic block is not an OpenAI Responses item
      void agent.call({ provider: "openai", api_family: "responses", provider_item: anthropic, context });
      // @ts-expect-error -- `messages` is not an OpenAI API family
      void agent.call({ provider: "openai", api_family: "messages", provider_item: openai, context });
    };
    expect(typeof typed).toBe("function");
    expectTypeOf<ProfileAnswer<"openai", "responses">["provider_output"]>().toEqualTypeOf<{
      type: "function_call_output";
      call_id: string;
      output: string;
    }>();
    expectTypeOf<ProfileAnswer<"mcp", "tools">["provider_output"]>().toEqualTypeOf<ProviderOutputs["mcp"]["tools"]>();
  });

  it("sends the OpenAI docs' function_call item unchanged, with the profile's adapter revision", async () => {
    // The item of OpenAI's function-calling guide (platform.openai.com/docs/guides/function-calling).
    const item: ResponseFunctionToolCall = {
      type: "function_call",
      id: "fc_12345xyz",
      call_id: "call_12345xyz",
      name: "get_weather",
      arguments: '{"location":"Paris, France"}',
    };
    const output = { type: "function_call_output", call_id: "call_12345xyz", output: '{"ok":true}' };
    const { agent, bodies } = recording({ provider_output: output });
    const answer = await agent.call({ provider: "openai", api_family: "responses", provider_item: item, context });
    expect(bodies).toEqual([
      '{"context":{"operation_id":"op-1","response_id":"resp-1","provider":"openai","api_family":"responses","adapter_revision":"openai-responses-v1"},"provider_item":{"type":"function_call","id":"fc_12345xyz","call_id":"call_12345xyz","name":"get_weather","arguments":"{\\"location\\":\\"Paris, France\\"}"}}',
    ]);
    expect(answer.ok && answer.value.provider_output.call_id).toBe("call_12345xyz");
  });

  it("sends the Anthropic docs' tool_use block and a proposal with the host's own fields", () => {
    // The block of Anthropic's tool-use guide (docs.anthropic.com, "Tool use with Claude"), plus the SDK's `caller`.
    const block: ToolUseBlock = {
      type: "tool_use",
      id: "toolu_01A09q90qw90lq917835lq9",
      name: "get_weather",
      input: { location: "San Francisco, CA", unit: "celsius" },
      caller: { type: "direct" },
    };
    expect(toolCallBody({ provider: "anthropic", api_family: "messages", provider_item: block, context })).toEqual({
      context: { ...context, provider: "anthropic", api_family: "messages", adapter_revision: "anthropic-messages-v1" },
      provider_item: block,
    });
    expect(
      toolCallBody({
        provider: "google",
        api_family: "interactions",
        proposal: { name: "lookup", arguments: { q: "x" } },
        principal: { subject_id: "alice", roles: ["support"] },
        rationale: "the user asked",
        context: { ...context, call_id: "c-1", idempotency_key: "k-1", adapter_revision: "gemini-interactions-v2" },
      }),
    ).toEqual({
      context: {
        operation_id: "op-1",
        response_id: "resp-1",
        call_id: "c-1",
        idempotency_key: "k-1",
        provider: "google",
        api_family: "interactions",
        adapter_revision: "gemini-interactions-v2",
      },
      proposal: { name: "lookup", arguments: { q: "x" } },
      principal: { subject_id: "alice", roles: ["support"] },
      rationale: "the user asked",
    });
  });

  it("derives the adapter revision the gate expects for every profile it registers", () => {
    const table: Record<string, Record<string, string>> = ADAPTER_REVISIONS;
    const pairs = Object.entries(table).flatMap(([provider, families]) =>
      Object.keys(families).map((family) => `${provider}/${family}`),
    );
    const registered = [...new Set(GATE_PROFILES.map((p) => `${p.provider}/${p.api_family}`))];
    expect(pairs.sort()).toEqual(registered.sort());
    for (const [provider, families] of Object.entries(table))
      for (const [family, revision] of Object.entries(families))
        expect(revision).toBe(expectedAdapterRevision(provider, family));
  });
});
