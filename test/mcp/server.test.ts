/**
 * The marketing MCP server: a real SDK client lists its tools (converted to the base harness's OpenAI
 * schemas exactly) and calls them on an explicit per-call context; the wire path and the synchronous
 * path episodes use give identical outcomes; list changes are announced; streamable HTTP works too.
 */
import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { emptyWorldState } from '../../protocol/domain.js';
import { Rng } from '../../protocol/rng.js';
import { worldFor } from '../../mock-services/index.js';
import {
  MARKETING_TOOLS,
  MCP_CONTEXT_META,
  callMarketingDirect,
  createMarketingServer,
  mcpToOutcome,
  mcpToolToOpenAi,
  openAiToMcpTool,
  outcomeToMcp,
  serveMarketingHttp,
} from '../../mock-services/mcp.js';
import { connectMarketingHttp, marketingHub, marketingSchemas } from '../../env/mcp.js';
import { loadBaseHarness } from '../../harness/index.js';

const world = worldFor(7, 'zh-CN');
const viewer = world.viewers[0].viewer_id;
const itemWithCoupon = world.products[0].item_id;

describe('marketing MCP server', () => {
  it('tools/list over the in-memory client gives back the base harness schemas exactly', async () => {
    const hub = marketingHub('en');
    const listed = await hub.listTools();
    const base = loadBaseHarness('en').tools.filter((t) => MARKETING_TOOLS.includes(t.function.name));
    expect(listed).toEqual(base);
    expect(hub.listedTools()).toEqual(base);
    expect(listed.map((t) => t.function.name)).toEqual(['get_promotions', 'get_coupon', 'issue_coupon']);
  });

  it('tools/call over the wire equals the synchronous path, and changes only the given overlay', async () => {
    const hub = marketingHub('zh-CN');
    for (const [name, args] of [
      ['get_promotions', { item_id: itemWithCoupon }],
      ['get_coupon', { coupon_id: world.coupons[0]?.coupon_id ?? 'nope' }],
      ['get_coupon', { coupon_id: 'no-such-coupon' }],
      ['issue_coupon', { viewer_id: viewer, coupon_id: world.coupons[0]?.coupon_id ?? 'nope' }],
      ['get_promotions', { item_id: 42 }],
    ] as const) {
      const s1 = emptyWorldState();
      const s2 = emptyWorldState();
      const wire = await hub.callTool(name, { ...args }, { ctx: { world, state: s1, viewer_id: viewer } });
      const direct = hub.callSync(name, { ...args }, { ctx: { world, state: s2, viewer_id: viewer } });
      expect(wire).toEqual(direct);
      expect(s1).toEqual(s2);
    }
    expect(hub.marketing.registry.size).toBe(0);
  });

  it('faults draw from the episode stream identically on both paths', async () => {
    const hub = marketingHub('zh-CN');
    const outs = [];
    for (const wire of [true, false]) {
      const rng = new Rng(3, 'faults');
      const list = [];
      for (let i = 0; i < 12; i++) {
        const entry = { ctx: { world, state: emptyWorldState(), viewer_id: viewer }, faults: { rate: 0.5, rng } };
        list.push(wire ? await hub.callTool('get_promotions', {}, entry) : hub.callSync('get_promotions', {}, entry));
      }
      outs.push(list);
    }
    expect(outs[0]).toEqual(outs[1]);
    expect(outs[0].some((o) => !o.ok)).toBe(true);
    expect(outs[0].some((o) => o.ok)).toBe(true);
  });

  it('a call without an open context, or to a tool the server does not serve, is an error result', async () => {
    const m = createMarketingServer(marketingSchemas('zh-CN'));
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 't', version: '1' });
    await Promise.all([m.server.connect(b), client.connect(a)]);
    const noCtx = mcpToOutcome(await client.callTool({ name: 'get_promotions', arguments: {} }));
    expect(noCtx).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED' } });
    const id = m.registry.open({ ctx: { world, state: emptyWorldState(), viewer_id: viewer } });
    const other = mcpToOutcome(
      await client.callTool({ name: 'get_product', arguments: { link_no: 1 }, _meta: { [MCP_CONTEXT_META]: id } }),
    );
    expect(other).toMatchObject({ ok: false, error: { code: 'UNKNOWN_TOOL' } });
    await client.close();
  });

  it('setTools announces notifications/tools/list_changed and tools/list follows', async () => {
    const m = createMarketingServer(marketingSchemas('zh-CN'));
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 't', version: '1' });
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed++;
    });
    await Promise.all([m.server.connect(b), client.connect(a)]);
    const schemas = marketingSchemas('zh-CN');
    await m.setTools([{ ...schemas[0], function: { ...schemas[0].function, name: 'list_campaigns' } }, ...schemas.slice(1)]);
    await new Promise((r) => setTimeout(r, 10));
    expect(changed).toBe(1);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['list_campaigns', 'get_coupon', 'issue_coupon']);
    await client.close();
  });

  it('conversions round-trip; outcomes round-trip through CallToolResult', () => {
    for (const t of marketingSchemas('zh-CN')) expect(mcpToolToOpenAi(openAiToMcpTool(t))).toEqual(t);
    const outcomes = [
      { ok: true as const, data: { coupons: [] } },
      { ok: false as const, error: { code: 'NOT_FOUND' as const, message: 'x', field: 'coupon_id' } },
      { ok: false as const, error: { code: 'MALFORMED_OUTPUT' as const, message: 'cut' }, raw: '{"a":' },
    ];
    for (const o of outcomes) expect(mcpToOutcome(outcomeToMcp(o))).toEqual(o);
    const entry = { ctx: { world, state: emptyWorldState(), viewer_id: viewer } };
    expect(callMarketingDirect('issue_coupon', { viewer_id: viewer }, entry)).toMatchObject({ ok: false });
  });

  it('serves over streamable HTTP on 127.0.0.1 as an option', async () => {
    const http = await serveMarketingHttp(marketingSchemas('en'));
    try {
      expect(http.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      const client = await connectMarketingHttp(http.url);
      const listed = (await client.listTools()).tools.map(mcpToolToOpenAi);
      expect(listed).toEqual(marketingSchemas('en'));
      const state = emptyWorldState();
      const id = http.marketing.registry.open({ ctx: { world, state, viewer_id: viewer } });
      const res = mcpToOutcome(await client.callTool({ name: 'get_promotions', arguments: {}, _meta: { [MCP_CONTEXT_META]: id } }));
      http.marketing.registry.close(id);
      expect(res).toEqual(callMarketingDirect('get_promotions', {}, { ctx: { world, state: emptyWorldState(), viewer_id: viewer } }));
      await client.close();
    } finally {
      await http.close();
    }
  });
});
