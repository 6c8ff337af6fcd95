/**
 * The per-process MCP client side of the marketing tools: one marketing MCP server and one client,
 * linked by an in-memory transport, shared by every episode of the process (creating a pair per episode
 * would cost far more than a reset; see README "MCP tools" for the measured cost). Streamable HTTP on
 * 127.0.0.1 is the optional transport (`connectMarketingHttp`).
 *
 * Episodes are synchronous state machines, while SDK requests are promises; so an episode's discovery
 * reads the server's current `tools/list` answer and its calls run the server's `tools/call` body on
 * the episode's explicit context (`callMarketingDirect`), byte-identical to the wire path, which
 * `MarketingHub.listTools` / `callTool` take for async callers and tests.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Locale, ToolOutcome, ToolSchema } from '../protocol/domain.js';
import { embeddedHarness } from '../harness/index.js';
import type { Harness } from '../protocol/harness.js';
import {
  MARKETING_TOOLS,
  MCP_CONTEXT_META,
  McpContextRegistry,
  callMarketingDirect,
  createMarketingServer,
  mcpToOutcome,
  mcpToolToOpenAi,
} from '../mock-services/index.js';
import type { MarketingServer, McpCallContext } from '../mock-services/index.js';

/** The canonical tool that discovers MCP tools (answered by the episode, like `load_skill`). */
export const DISCOVER_TOOLS_TOOL = 'discover_tools';

export { MARKETING_TOOLS };

/** The canonical marketing tool schemas of a base harness (the embedded one in `locale` by default): what the server lists. */
export function marketingSchemas(locale: Locale, base: Harness = embeddedHarness().get(locale)): ToolSchema[] {
  return base.tools.filter((t) => MARKETING_TOOLS.includes(t.function.name));
}

/**
 * One marketing MCP server and its client, per process and locale. The server's list is the canonical
 * one; the episode maps it to the variant's surface names.
 */
export class MarketingHub {
  readonly locale: Locale;
  readonly marketing: MarketingServer;
  readonly client: Client;
  readonly #connected: Promise<void>;
  #listChanges = 0;

  constructor(locale: Locale, base: Harness = embeddedHarness().get(locale)) {
    this.locale = locale;
    this.marketing = createMarketingServer(marketingSchemas(locale, base), new McpContextRegistry());
    this.client = new Client({ name: 'harness-gym-env', version: '1.0.0' });
    this.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      this.#listChanges++;
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    // Connecting is async (the initialize handshake); nothing synchronous waits for it.
    this.#connected = Promise.all([this.marketing.server.connect(serverSide), this.client.connect(clientSide)]).then(() => undefined);
  }

  /** Resolves once the in-memory client has completed the MCP handshake. */
  ready(): Promise<void> {
    return this.#connected;
  }

  /** `notifications/tools/list_changed` received by this client so far. */
  get listChanges(): number {
    return this.#listChanges;
  }

  /** The server's current `tools/list` answer as OpenAI schemas (synchronous: what discovery offers). */
  listedTools(): ToolSchema[] {
    return this.marketing.tools().map(mcpToolToOpenAi);
  }

  /** `tools/list` over the MCP client, converted to OpenAI tool schemas. */
  async listTools(): Promise<ToolSchema[]> {
    await this.#connected;
    const res = await this.client.listTools();
    return res.tools.map(mcpToolToOpenAi);
  }

  /** `tools/call` over the MCP client, with the episode's context registered for the call's duration. */
  async callTool(name: string, args: Record<string, unknown>, entry: McpCallContext): Promise<ToolOutcome> {
    await this.#connected;
    const id = this.marketing.registry.open(entry);
    try {
      const res = await this.client.callTool({ name, arguments: args, _meta: { [MCP_CONTEXT_META]: id } });
      return mcpToOutcome(res);
    } finally {
      this.marketing.registry.close(id);
    }
  }

  /** A call for a synchronous episode step: the server's `tools/call` body on an explicit context. */
  callSync(name: string, args: Record<string, unknown>, entry: McpCallContext): ToolOutcome {
    return callMarketingDirect(name, args, entry);
  }
}

const hubs = new WeakMap<Harness, MarketingHub>();

/** The process-wide hub of a base harness (the embedded one in `locale` by default), created on first use. */
export function marketingHub(locale: Locale, base: Harness = embeddedHarness().get(locale)): MarketingHub {
  let hub = hubs.get(base);
  if (!hub) {
    hub = new MarketingHub(locale, base);
    hubs.set(base, hub);
  }
  return hub;
}

/** A client connected to a marketing server over streamable HTTP (the optional transport). */
export async function connectMarketingHttp(url: string): Promise<Client> {
  const client = new Client({ name: 'harness-gym-env', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}
