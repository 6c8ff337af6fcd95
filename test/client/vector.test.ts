import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HarnessGymClient, VectorEnv } from '../../client/index.js';
import { HarnessGymEnv } from '../../env/index.js';
import { startTestServer } from './fixture.js';
import type { TestServer } from './fixture.js';

let srv: TestServer;
let client: HarnessGymClient;
beforeAll(async () => {
  srv = await startTestServer();
  client = await HarnessGymClient.connect(srv.url);
});
afterAll(async () => {
  await client.close();
  await srv.close();
});

// A reply with no skill loaded: the base harness objects once (SKILL_NOT_LOADED, one retry), then blocks.
// So an env fed only this ends on its 2nd step, terminated with outcome hook_blocked.
const REPLY = { message: { role: 'assistant', content: '宝宝们好' } };
// A valid tool call: the episode goes on (until the turn cap, 8 in the base harness).
const CALL = {
  message: {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_product', arguments: '{"link_no":1}' } }],
  },
};

/** The first observation of a fresh in-process episode with this seed. */
function freshObservation(seed: number) {
  return new HarnessGymEnv().reset({ seed, options: { variant: 'identity' } });
}

describe('VectorEnv', () => {
  it('reset uses seeds seed+i in one frame and matches in-process resets', async () => {
    const venv = new VectorEnv(client, { num_envs: 3, seed: 40, id_prefix: 'r' });
    const { observations, infos } = await venv.reset();
    expect(infos.map((i) => [i.episode_id, i.seed, i.turn])).toEqual([
      ['r-0', 40, 0],
      ['r-1', 41, 0],
      ['r-2', 42, 0],
    ]);
    observations.forEach((o, i) => expect(o).toEqual(freshObservation(40 + i).observation));
    await venv.close();
  });

  it('next_step autoreset: the ending step reports the end, the following step returns the new episode', async () => {
    const venv = new VectorEnv(client, { num_envs: 2, seed: 100, id_prefix: 'ns' });
    expect(venv.autoreset_mode).toBe('next_step');
    await venv.reset();
    const acts = [REPLY, CALL];
    const s1 = await venv.step(acts);
    expect([s1.terminateds, s1.truncateds, s1.rewards]).toEqual([
      [false, false],
      [false, false],
      [0, 0],
    ]);
    const s2 = await venv.step(acts);
    expect(s2.terminateds).toEqual([true, false]);
    expect(s2.truncateds).toEqual([false, false]);
    expect(s2.infos[0].outcome).toBe('hook_blocked');
    expect(s2.infos[0].autoreset).toBeUndefined();
    expect(s2.infos[1].turn).toBe(2);
    // Env 0's action is ignored: it is reset with its next seed (100 + 0 + 1*N).
    const s3 = await venv.step(acts);
    expect(s3.infos[0]).toMatchObject({ autoreset: true, seed: 102, turn: 0, episode_id: 'ns-0' });
    expect(s3.observations[0]).toEqual(freshObservation(102).observation);
    expect([s3.rewards[0], s3.terminateds[0], s3.truncateds[0]]).toEqual([0, false, false]);
    expect(s3.infos[1]).toMatchObject({ turn: 3, seed: 101 });
    expect(s3.infos[1].autoreset).toBeUndefined();
    // The new episode steps normally afterwards.
    const s4 = await venv.step(acts);
    expect(s4.infos[0].turn).toBe(1);
    await venv.close();
  });

  it('next_step autoreset of a truncated episode (turn cap)', async () => {
    const venv = new VectorEnv(client, { num_envs: 1, seed: 7, id_prefix: 'tr' });
    await venv.reset();
    let last;
    for (let t = 0; t < 8; t++) last = await venv.step([CALL]);
    expect(last!.truncateds).toEqual([true]);
    expect(last!.terminateds).toEqual([false]);
    expect(last!.infos[0].outcome).toBe('max_turns');
    const next = await venv.step([CALL]);
    expect(next.infos[0]).toMatchObject({ autoreset: true, seed: 8, turn: 0 });
    await venv.close();
  });

  it('same_step autoreset: the ending step returns the new first observation, the final one in info', async () => {
    const venv = new VectorEnv(client, { num_envs: 2, seed: 100, id_prefix: 'ss', autoreset_mode: 'same_step' });
    await venv.reset();
    await venv.step([REPLY, CALL]);
    const s2 = await venv.step([REPLY, CALL]);
    expect(s2.terminateds).toEqual([true, false]);
    expect(s2.infos[0]).toMatchObject({ autoreset: true, seed: 102, turn: 0 });
    expect(s2.infos[0].final_info).toMatchObject({ outcome: 'hook_blocked', seed: 100, turn: 2 });
    // The slot keeps the ending step's reward: the same as the in-process episode's final reward.
    const local = new HarnessGymEnv();
    local.reset({ seed: 100, options: { variant: 'identity' } });
    local.step(REPLY);
    const end = local.step(REPLY);
    expect(end.terminated).toBe(true);
    expect(s2.rewards[0]).toBe(end.reward);
    expect(s2.infos[0].final_info!.reward_components).toEqual(end.info.reward_components);
    expect(s2.observations[0]).toEqual(freshObservation(102).observation);
    // A blocked reply adds no message: the final (delta) observation is empty.
    expect(s2.infos[0].final_observation).toEqual(end.observation);
    const s3 = await venv.step([REPLY, CALL]);
    expect(s3.infos[0]).toMatchObject({ turn: 1, seed: 102 });
    expect(s3.infos[0].autoreset).toBeUndefined();
    await venv.close();
  });

  it('GRPO groups: G consecutive envs share a group id, a seed and a task; later generations get new groups', async () => {
    const venv = new VectorEnv(client, { num_envs: 6, seed: 300, group_size: 3, id_prefix: 'gr' });
    const r = await venv.reset();
    expect(r.infos.map((i) => i.group_id)).toEqual(['gr-g0.0', 'gr-g0.0', 'gr-g0.0', 'gr-g1.0', 'gr-g1.0', 'gr-g1.0']);
    expect(r.infos.map((i) => i.seed)).toEqual([300, 300, 300, 303, 303, 303]);
    const tasks = r.infos.map((i) => i.task_id);
    expect(new Set(tasks.slice(0, 3)).size).toBe(1);
    expect(new Set(tasks.slice(3)).size).toBe(1);
    expect(tasks[0]).toBe(freshObservation(300).info.task_id);
    expect(tasks[3]).toBe(freshObservation(303).info.task_id);
    expect(tasks[0]).not.toBe(tasks[3]);
    // Members finish at different times: env 0 and 1 reply (end on step 2), env 2 keeps calling tools.
    const acts = [REPLY, REPLY, CALL, REPLY, REPLY, REPLY];
    await venv.step(acts);
    await venv.step(acts);
    const s3 = await venv.step(acts);
    expect(s3.infos.map((i) => i.group_id)).toEqual(['gr-g0.1', 'gr-g0.1', 'gr-g0.0', 'gr-g1.1', 'gr-g1.1', 'gr-g1.1']);
    expect(s3.infos[0].seed).toBe(306);
    expect(s3.infos[0].task_id).toBe(freshObservation(306).info.task_id);
    expect(s3.infos[1].task_id).toBe(s3.infos[0].task_id);
    expect(s3.infos[2].autoreset).toBeUndefined();
    await venv.close();
  });

  it('an item error stays in its slot (reported in info.error), the other envs step', async () => {
    const venv = new VectorEnv(client, { num_envs: 2, seed: 1, id_prefix: 'ie' });
    await venv.reset();
    const s = await venv.step([{ nonsense: true }, CALL]);
    expect(s.infos[0].error?.code).toBe('INVALID_ACTION');
    expect(s.observations[0]).toEqual({ messages: [] });
    expect(s.infos[1].turn).toBe(1);
    await venv.close();
  });

  it('step before reset is RESET_NEEDED; wrong action count is a RangeError', async () => {
    const venv = new VectorEnv(client, { num_envs: 2, seed: 1, id_prefix: 'bad' });
    await expect(venv.step([REPLY, REPLY])).rejects.toMatchObject({ code: 'RESET_NEEDED' });
    await venv.reset();
    await expect(venv.step([REPLY])).rejects.toBeInstanceOf(RangeError);
    expect(() => new VectorEnv(client, { num_envs: 4, seed: 1, group_size: 3 })).toThrow(RangeError);
    await venv.close();
  });
});
