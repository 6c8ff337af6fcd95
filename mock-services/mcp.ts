/**
 * The marketing service as a real MCP server (`@modelcontextprotocol/sdk`): `tools/list` answers the
 * marketing tools' definitions, `tools/call` runs the same mock-service handlers as every other tool, and
 * `notifications/tools/list_changed` announces a new list. In production the avatar discovers these tools
 * at run time over MCP (DESIGN.md, "Tool registry"); here one server serves every episode of a process.
 *
 * Per-episode state is explicit, never held by the server: a call names its episode's context in
 * `params._meta["harness-gym/context"]`, a key the caller registered in a `McpContextRegistry` (world,
 * overlay, viewer, fault stream) for the duration of the call. Episodes (whose `step` is synchronous) use
 * `callMarketingDirect`, the very encode -> handle -> decode path the server's `tools/call` handler runs,
 * without the JSON-RPC hop; async callers go through a real client (in-memory or streamable HTTP).
 */
import { createServer } from 'node:http';
import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { CallToolResult, Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import type { ToolErrorCode, ToolOutcome, ToolSchema } from '../protocol/domain.js';
import { TOOL_ERROR_CODES } from '../protocol/domain.js';
import { isRecord } from '../protocol/objects.js';
import { callService } from './services.js';
import type { FaultOptions, ServiceContext } from './services.js';

/** The MCP server's name, as `discover_tools {server}` names it. */
export const MARKETING_SERVER = 'marketing';

/** Canonical tools served by the marketing MCP server (absent from an episode's tools until discovered). */
export const MARKETING_TOOLS: readonly string[] = ['get_promotions', 'get_coupon', 'issue_coupon'];

/** The `_meta` key that carries an episode's context id on `tools/call`. */
export const MCP_CONTEXT_META = 'harness-gym/context';

/** What one registered context holds: the episode's world and overlay, and its fault stream. */
export interface McpCallContext {
  ctx: ServiceContext;
  faults?: FaultOptions;
}

/**
 * Contexts of in-flight calls by id. The caller opens one right before a call and closes it after, so
 * the registry holds only calls in flight (no per-episode lifetime to manage, nothing to leak).
 */
export class McpContextRegistry {
  readonly #entries = new Map<string, McpCallContext>();
  #next = 0;

  /** Register a context; returns its id (process-local, never part of an observation). */
  open(entry: McpCallContext): string {
    const id = `ctx-${++this.#next}`;
    this.#entries.set(id, entry);
    return id;
  }

  /** The context of an id, if open. */
  get(id: string): McpCallContext | undefined {
    return this.#entries.get(id);
  }

  /** Forget a context. */
  close(id: string): void {
    this.#entries.delete(id);
  }

  /** Contexts currently open (0 between calls; tests check nothing leaks). */
  get size(): number {
    return this.#entries.size;
  }
}

/** A canonical OpenAI tool schema as an MCP tool definition (`inputSchema` is the JSON Schema). */
export function openAiToMcpTool(tool: ToolSchema): McpTool {
  const def: McpTool = { name: tool.function.name, inputSchema: tool.function.parameters as McpTool['inputSchema'] };
  if (tool.function.description !== undefined) def.description = tool.function.description;
  return def;
}

/** An MCP tool definition as an OpenAI tool schema (what an episode offers after discovery). */
export function mcpToolToOpenAi(tool: McpTool): ToolSchema {
  const fn: ToolSchema['function'] = { name: tool.name, parameters: tool.inputSchema as ToolSchema['function']['parameters'] };
  if (tool.description !== undefined) fn.description = tool.description;
  return { type: 'function', function: fn };
}

/** A service outcome as an MCP `CallToolResult` (errors are results with `isError`, as MCP specifies). */
export function outcomeToMcp(outcome: ToolOutcome): CallToolResult {
  if (outcome.ok) {
    const text = JSON.stringify(outcome.data);
    const structured = typeof outcome.data === 'object' && outcome.data !== null && !Array.isArray(outcome.data);
    return structured
      ? { content: [{ type: 'text', text }], structuredContent: outcome.data as Record<string, unknown> }
      : { content: [{ type: 'text', text }] };
  }
  const body: Record<string, unknown> = { error: outcome.error };
  if (outcome.raw !== undefined) body.raw = outcome.raw;
  return { content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body, isError: true };
}

/** An MCP `CallToolResult` back as a service outcome (the inverse of `outcomeToMcp`). */
export function mcpToOutcome(result: unknown): ToolOutcome {
  const r = isRecord(result) ? result : {};
  let body: unknown = r.structuredContent;
  if (body === undefined) {
    const first = Array.isArray(r.content) ? (r.content[0] as unknown) : undefined;
    const text = isRecord(first) && typeof first.text === 'string' ? first.text : '';
    try {
      body = JSON.parse(text);
    } catch {
      return { ok: false, error: { code: 'MALFORMED_OUTPUT', message: 'the MCP server answered text that is not JSON' }, raw: text };
    }
  }
  if (r.isError !== true) return { ok: true, data: body };
  const err = isRecord(body) && isRecord(body.error) ? body.error : {};
  const code = (TOOL_ERROR_CODES as readonly string[]).includes(String(err.code)) ? (err.code as ToolErrorCode) : 'MALFORMED_OUTPUT';
  const error = { code, message: typeof err.message === 'string' ? err.message : 'tool error' };
  const withField = typeof err.field === 'string' ? { ...error, field: err.field } : error;
  const raw = isRecord(body) && typeof body.raw === 'string' ? body.raw : undefined;
  return raw === undefined ? { ok: false, error: withField } : { ok: false, error: withField, raw };
}

/**
 * The `tools/call` handler's body: a marketing call on an explicit context. Non-marketing names are
 * UNKNOWN_TOOL (the server serves only its own tools).
 */
export function handleMarketingCall(name: string, args: unknown, entry: McpCallContext): CallToolResult {
  if (!MARKETING_TOOLS.includes(name)) {
    return outcomeToMcp({ ok: false, error: { code: 'UNKNOWN_TOOL', message: `no tool named ${name} on the ${MARKETING_SERVER} server` } });
  }
  return outcomeToMcp(callService(name, args ?? {}, entry.ctx, entry.faults));
}

/**
 * A marketing call for a synchronous caller (an episode's step): the same encode -> handle -> decode
 * path as the server's `tools/call`, without the JSON-RPC hop, so both give identical outcomes.
 */
export function callMarketingDirect(name: string, args: unknown, entry: McpCallContext): ToolOutcome {
  return mcpToOutcome(handleMarketingCall(name, args, entry));
}

/** The marketing MCP server with its mutable tool list. */
export interface MarketingServer {
  readonly server: Server;
  readonly registry: McpContextRegistry;
  /** The list `tools/list` answers now. */
  tools(): McpTool[];
  /** Replace the list and send `notifications/tools/list_changed` (when connected). */
  setTools(tools: readonly ToolSchema[]): Promise<void>;
}

/**
 * Build the marketing MCP server over the given canonical tool schemas (the harness owns the schemas;
 * mock-services does not read harness data). Connect it to a transport with `server.connect`.
 */
export function createMarketingServer(
  tools: readonly ToolSchema[],
  registry: McpContextRegistry = new McpContextRegistry(),
): MarketingServer {
  const server = new Server(
    { name: `harness-gym-${MARKETING_SERVER}`, version: '1.0.0' },
    { capabilities: { tools: { listChanged: true } } },
  );
  let list = tools.map(openAiToMcpTool);
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: list }));
  server.setRequestHandler(CallToolRequestSchema, (req) => {
    const id = req.params._meta?.[MCP_CONTEXT_META];
    const entry = typeof id === 'string' ? registry.get(id) : undefined;
    if (!entry) {
      return outcomeToMcp({
        ok: false,
        error: { code: 'PERMISSION_DENIED', message: `tools/call needs an open context in _meta["${MCP_CONTEXT_META}"]` },
      });
    }
    return handleMarketingCall(req.params.name, req.params.arguments, entry);
  });
  return {
    server,
    registry,
    tools: () => list,
    async setTools(next) {
      list = next.map(openAiToMcpTool);
      // Only a connected server can notify; before connecting, the new list is simply what tools/list answers.
      if (server.transport) await server.sendToolListChanged();
    },
  };
}

/** A marketing server listening on streamable HTTP (the optional transport). */
export interface MarketingHttpServer {
  /** e.g. `http://127.0.0.1:PORT/mcp`. */
  readonly url: string;
  readonly marketing: MarketingServer;
  close(): Promise<void>;
}

/**
 * Serve the marketing MCP server over streamable HTTP on 127.0.0.1 (port 0 picks a free one). One
 * session: a single client (this process's env) connects, as the in-memory pair does.
 */
export async function serveMarketingHttp(
  tools: readonly ToolSchema[],
  port = 0,
  registry?: McpContextRegistry,
): Promise<MarketingHttpServer> {
  const marketing = createMarketingServer(tools, registry);
  let sessions = 0;
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => `marketing-${++sessions}` });
  await marketing.server.connect(transport);
  const http: HttpServer = createServer((req, res) => {
    if (!req.url?.startsWith('/mcp')) {
      res.writeHead(404).end();
      return;
    }
    void transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(port, '127.0.0.1', resolve));
  const addr = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${addr.port}/mcp`,
    marketing,
    async close() {
      await marketing.server.close();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
