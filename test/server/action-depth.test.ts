/**
 * Deeply nested actions (issue 39, "memory per episode bounded whatever the client sends"; PROTOCOL.md
 * "Limits"), over real sockets on 127.0.0.1, in-process and on a worker thread, recording on. An action
 * the parser would read (a `text`) carrying an ignored key nested 20,000 levels deep was accepted, kept,
 * and made the next step INTERNAL ("Maximum call stack size exceeded" in the codec); tool-call
 * arguments nested 30,000 deep overflowed the stack of the service call. Now the action is the item's
 * `INVALID_ACTION` before anything keeps it, deep arguments are a failed call (`PARSE_ERROR`) the agent
 * reads, the episode goes on, and its record is read back whole.
 */
import { readdirSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer } from '../../server/index.js';
import type { RunningServer } from '../../server/index.js';
import { readRecords } from '../../recording/index.js';
import { tempDir } from '../cli/helpers.js';
import { connect, testConfig } from './helpers.js';

let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const deep = (n: number): string => '['.repeat(n) + ']'.repeat(n);

for (const workers of [0, 1]) {
  describe(`deep actions (workers: ${workers})`, () => {
    it('an action nested 20,000 deep is INVALID_ACTION, deep arguments are a failed call, and the episode and its record go on', async () => {
      const dir = tempDir('hg-deep-');
      server = await startServer(testConfig({ port: 0, workers, record: { dir } }));
      const c = await connect(server.url);
      await c.hello();
      const r = await c.request({ type: 'reset', id: 'r', items: [{ episode_id: 'e', seed: 5, options: { max_turns: 2 } }] });
      expect(r.items[0].ok).toBe(true);

      // Built as text: the client's own JSON.stringify could not write it.
      c.sendRaw(`{"type":"step","id":"d","items":[{"episode_id":"e","action":{"text":"hello","junk":${deep(20_000)}}}]}`);
      expect((await c.next()).msg).toEqual({
        type: 'step_result',
        id: 'd',
        items: [{ ok: false, episode_id: 'e', error: { code: 'INVALID_ACTION', message: 'action nested too deep (more than 16 levels of objects and arrays)' } }],
      });

      // The arguments are a JSON string holding the deep object.
      const args = JSON.stringify(`{"name":${deep(30_000)}}`);
      const call = `{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"load_skill","arguments":${args}}}]}`;
      c.sendRaw(`{"type":"step","id":"a","items":[{"episode_id":"e","action":{"message":${call}}}]}`);
      const a = (await c.next()).msg as { items: { ok: boolean; observation: { messages: { role: string; content: string }[] }; info: { turn: number } }[] };
      expect(a.items[0].ok).toBe(true);
      expect(a.items[0].info.turn).toBe(1);
      expect(a.items[0].observation.messages).toEqual([
        {
          role: 'tool',
          tool_call_id: 'c1',
          content: JSON.stringify({ error: { code: 'PARSE_ERROR', message: 'arguments nested too deep (more than 32 levels of objects and arrays)' } }),
        },
      ]);

      // The episode goes on to its end, and its record holds every step.
      const end = await c.request({ type: 'step', id: 'f', items: [{ episode_id: 'e', action: { text: '您好，请问想了解哪款商品？' } }] });
      expect(end.items[0].ok).toBe(true);
      expect(end.items[0].terminated || end.items[0].truncated).toBe(true);
      c.ws.close(1000);
      await server.close();
      server = undefined;
      expect(readdirSync(dir).filter((n) => n.endsWith('.hgrec'))).toHaveLength(1);
      const read = readRecords(dir);
      if (!read.ok) throw new Error(read.message);
      expect(read.result.warnings).toEqual([]);
      expect(read.result.records).toHaveLength(1);
      // The refused action never reached the episode: its steps are the failed call and the reply.
      expect(read.result.records[0].record.steps).toHaveLength(2);
    });
  });
}
