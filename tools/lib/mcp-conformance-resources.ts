/**
 * The resources, resource template, prompts and completions the official conformance suite's
 * server scenarios read by name (`test://static-text`, `test_simple_prompt`, …), each answering
 * as the suite's scenario text asks. They sit on the same SDK server as the suite's tools
 * (mcp-conformance-tools.ts), so the gate federates them through that server's MCP target.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CompleteRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { McpError, ErrorCode } from "@modelcontextprotocol/sdk/types.js";

/** The server capabilities these handlers need. */
export const RESOURCE_CAPABILITIES = {
  resources: { subscribe: true, listChanged: false },
  prompts: { listChanged: false },
  completions: {},
};

const STATIC_TEXT = "This is the content of the static text resource.";
const TEMPLATE = /^test:\/\/template\/([^/]{1,64})\/data$/;

const RESOURCES = [
  {
    uri: "test://static-text",
    name: "static-text",
    description: "A fixed text resource.",
    mimeType: "text/plain",
  },
  {
    uri: "test://static-binary",
    name: "static-binary",
    description: "A 1x1 PNG image.",
    mimeType: "image/png",
  },
  {
    uri: "test://watched-resource",
    name: "watched-resource",
    description: "A resource a client may subscribe to.",
    mimeType: "text/plain",
  },
];

const PROMPTS = [
  { name: "test_simple_prompt", description: "A prompt without arguments." },
  {
    name: "test_prompt_with_arguments",
    description: "A prompt that puts its two arguments into its text.",
    arguments: [
      { name: "arg1", description: "First test argument", required: true },
      { name: "arg2", description: "Second test argument", required: true },
    ],
  },
  {
    name: "test_prompt_with_embedded_resource",
    description: "A prompt that embeds a resource.",
    arguments: [{ name: "resourceUri", description: "URI of the resource to embed", required: true }],
  },
  { name: "test_prompt_with_image", description: "A prompt that holds an image." },
];

/** Words the completion of `test_prompt_with_arguments`'s `arg1` offers. */
const WORDS = ["paris", "park", "party", "test", "testing"];

/** Adds the handlers to a server built with {@link RESOURCE_CAPABILITIES}; `png` is the image the binary answers. */
export function serveResourcesAndPrompts(server: Server, png: string): void {
  const subscribed = new Set<string>();
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: RESOURCES }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [
      {
        uriTemplate: "test://template/{id}/data",
        name: "template",
        description: "Data for an id.",
        mimeType: "application/json",
      },
    ],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const uri = request.params.uri;
    if (uri === "test://static-text" || uri === "test://watched-resource")
      return { contents: [{ uri, mimeType: "text/plain", text: STATIC_TEXT }] };
    if (uri === "test://static-binary") return { contents: [{ uri, mimeType: "image/png", blob: png }] };
    const id = TEMPLATE.exec(uri)?.[1];
    if (id !== undefined)
      return {
        contents: [
          {
            uri,
            mimeType: "application/json",
            text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
          },
        ],
      };
    throw new McpError(-32002, `Resource not found: ${uri}`);
  });
  server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    subscribed.add(request.params.uri);
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    subscribed.delete(request.params.uri);
    return {};
  });
  server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: PROMPTS }));
  server.setRequestHandler(GetPromptRequestSchema, async (request) => {
    const args = request.params.arguments ?? {};
    switch (request.params.name) {
      case "test_simple_prompt":
        return {
          messages: [{ role: "user", content: { type: "text", text: "This is a simple prompt for testing." } }],
        };
      case "test_prompt_with_arguments":
        return {
          messages: [
            {
              role: "user",
              content: {
                type: "text",
                text: `Prompt with arguments: arg1='${args["arg1"] ?? ""}', arg2='${args["arg2"] ?? ""}'`,
              },
            },
          ],
        };
      case "test_prompt_with_embedded_resource":
        return {
          messages: [
            {
              role: "user",
              content: {
                type: "resource",
                resource: {
                  uri: args["resourceUri"] ?? "test://example-resource",
                  mimeType: "text/plain",
                  text: "Embedded resource content for testing.",
                },
              },
            },
            { role: "user", content: { type: "text", text: "Please process the embedded resource above." } },
          ],
        };
      case "test_prompt_with_image":
        return {
          messages: [
            { role: "user", content: { type: "image", data: png, mimeType: "image/png" } },
            { role: "user", content: { type: "text", text: "Please analyze the image above." } },
          ],
        };
      default:
        throw new McpError(ErrorCode.InvalidParams, `Prompt not found: ${request.params.name}`);
    }
  });
  server.setRequestHandler(CompleteRequestSchema, async (request) => {
    const ref = request.params.ref;
    if (ref.type !== "ref/prompt" || ref.name !== "test_prompt_with_arguments")
      throw new McpError(ErrorCode.InvalidParams, "No completions for this reference.");
    const values = WORDS.filter((word) => word.startsWith(request.params.argument.value));
    return { completion: { values, total: values.length, hasMore: false } };
  });
}
