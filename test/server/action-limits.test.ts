/**
 * Action size limits over real sockets (issue 39, "hostile input"; PROTOCOL.md "Limits"), on 127.0.0.1
 * port 0, in-process and on a worker thread: an action over `max_action_chars` or with more than
 * `max_action_calls` tool calls is the item's `INVALID_ACTION` naming the bound, the episode goes on
 * unchanged (its next normal step is turn 1), and `welcome.limits` announces both bounds.
 */
import { describe, it, expect, afterEach } from 'vitest';
import { startServer } from '../../server/index.js';
import type { RunningServer } from '../../server/index.js';
import { connect, testConfig } from './helpers.js';

// The documented limits (PROTOCOL.md "Limits"), as a client reads them.
const MAX_ACTION_CHARS = 65536;
const MAX_ACTION_CALLS = 64;

let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const loadSkill = {
  message: {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'c1', type: 'function', function: { name: 'load_skill', arguments: '{"name":"product-qa"}' } }],
  },
};

for (const workers of [0, 1]) {
  describe(`actions are bounded (workers: ${workers})`, () => {
    it('welcome.limits announces max_action_chars and max_action_calls', async () => {
      server = await startServer(testConfig({ port: 0, workers }));
      const c = await connect(server.url);
      const w = await c.hello();
      expect(w.limits.max_action_chars).toBe(MAX_ACTION_CHARS);
      expect(w.limits.max_action_calls).toBe(MAX_ACTION_CALLS);
      c.ws.close(1000);
    });

    it('an over-long action and one with too many calls are INVALID_ACTION; the episode then steps normally', async () => {
      server = await startServer(testConfig({ port: 0, workers }));
      const c = await connect(server.url);
      await c.hello();
      const r = await c.request({ type: 'reset', id: 'r', items: [{ episode_id: 'e', seed: 5, options: { parser: 'hermes' } }] });
      expect(r.items[0].ok).toBe(true);
      const tooMany = '<tool_call>{"name":"load_skill","arguments":{"name":"product-qa"}}</tool_call>'.repeat(MAX_ACTION_CALLS + 1);
      for (const binary of [false, true]) {
        const st = await c.request(
          {
            type: 'step',
            id: `s${binary}`,
            items: [{ episode_id: 'e', action: { text: 'x'.repeat(70000) } }],
          },
          binary,
        );
        expect(st.items[0]).toEqual({
          ok: false,
          episode_id: 'e',
          error: { code: 'INVALID_ACTION', message: `action too long: 70000 characters, at most ${MAX_ACTION_CHARS} (limits.max_action_chars)` },
        });
      }
      const many = await c.request({ type: 'step', id: 'm', items: [{ episode_id: 'e', action: { text: tooMany } }] });
      expect(many.items[0]).toEqual({
        ok: false,
        episode_id: 'e',
        error: { code: 'INVALID_ACTION', message: `too many tool calls: ${MAX_ACTION_CALLS + 1}, at most ${MAX_ACTION_CALLS} (limits.max_action_calls)` },
      });
      const structured = {
        message: {
          role: 'assistant',
          content: null,
          tool_calls: Array.from({ length: MAX_ACTION_CALLS + 1 }, (_, i) => ({
            id: `c${i}`,
            type: 'function',
            function: { name: 'load_skill', arguments: '{"name":"product-qa"}' },
          })),
        },
      };
      const many2 = await c.request({ type: 'step', id: 'm2', items: [{ episode_id: 'e', action: structured }] }, true);
      expect(many2.items[0].error.code).toBe('INVALID_ACTION');
      expect(many2.items[0].error.message).toContain('limits.max_action_calls');
      // The episode is where it was: the next normal action is its first turn.
      const ok = await c.request({ type: 'step', id: 'ok', items: [{ episode_id: 'e', action: loadSkill }] });
      expect(ok.items[0].ok).toBe(true);
      expect(ok.items[0].info.turn).toBe(1);
      expect(ok.items[0].terminated || ok.items[0].truncated).toBe(false);
      c.ws.close(1000);
    });
  });
}
