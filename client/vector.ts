/**
 * `VectorEnv`: N episodes kept running over one client, in the manner of Gymnasium's vector environments
 * (`gymnasium.vector.VectorEnv`), with one batched frame per call.
 *
 * Autoreset mode (explicit, as Gymnasium 1.x names them):
 * - `next_step` (default, Gymnasium's `AutoresetMode.NEXT_STEP`): the step on which env i ends returns its
 *   final observation, reward and terminated/truncated. On the following `step` call env i's action is
 *   ignored and env i is reset instead (in a `reset` frame sent beside that call's `step` frame); its slot
 *   then holds the new episode's first observation with reward 0, terminated and truncated false and
 *   `info.autoreset: true`.
 * - `same_step` (Gymnasium's `AutoresetMode.SAME_STEP`): env i is reset within the call on which it ended;
 *   the slot returns the new episode's first observation, the final step's reward and flags, and the final
 *   observation and info in `info.final_observation` / `info.final_info`.
 *
 * Seeds are explicit, so the server draws nothing and a run is reproducible: env i's k-th episode (k = 0
 * on `reset`) uses seed `seed + i + k * N` (uint32 arithmetic). With `group_size` G (GRPO), each run of G
 * consecutive envs is a group: member i of group g = floor(i / G) uses the group's seed
 * `seed + g * G + k * N` and group id `<prefix>-g<g>.<k>` for its k-th episode, so the k-th episodes of
 * the siblings share one task (and variant, under the server's default `group_share`) even when the
 * siblings finish at different steps: a group spans frames (PROTOCOL.md "Groups").
 */
import type { HarnessGymClient } from './client.js';
import { HarnessGymError } from './client.js';
import type { Observation, ResetItem, ResetResultItem, StepInfo, StepResultItem, WireError } from './types.js';

/** When finished episodes are reset (see the module comment). */
export type AutoresetMode = 'next_step' | 'same_step';

/** Options of a `VectorEnv`. */
export interface VectorEnvOptions {
  /** Number of parallel episodes (N). */
  num_envs: number;
  /** Seed of env 0's first episode. */
  seed: number;
  /** GRPO group size G (must divide N); absent: no groups. */
  group_size?: number;
  /** Prefix of episode ids (`<prefix>-<i>`) and group ids; unique per session. Default `venv`. */
  id_prefix?: string;
  /** Everything else of every reset item: task selector, variant and options. */
  reset_template?: Omit<ResetItem, 'episode_id' | 'seed' | 'group_id'>;
  autoreset_mode?: AutoresetMode;
}

/** The batched result of `reset`. */
export interface VectorResetResult {
  observations: Observation[];
  infos: VectorInfo[];
}

/** The batched result of `step`, Gymnasium's five arrays. */
export interface VectorStepResult {
  observations: Observation[];
  rewards: number[];
  terminateds: boolean[];
  truncateds: boolean[];
  infos: VectorInfo[];
}

/**
 * Per-env info: the server's info plus the slot's `episode_id`, `seed` and `group_id`; `autoreset: true`
 * on a slot that was just reset; `error` (and empty observation, reward 0, flags false) when that item
 * failed alone (an `ItemError`: the caller decides, e.g. retries with another action).
 */
export type VectorInfo = Partial<StepInfo> & {
  episode_id: string;
  seed: number;
  group_id?: string;
  autoreset?: boolean;
  error?: WireError;
  final_observation?: Observation;
  final_info?: VectorInfo;
};

interface Slot {
  episode_id: string;
  /** Episodes started in this slot so far (k of the next one). */
  started: number;
  seed: number;
  group_id?: string;
  /** The episode ended: the next step resets it (`next_step`). */
  needs_reset: boolean;
}

const EMPTY_OBS = (): Observation => ({ messages: [] });

/** N episodes over one client, one batched frame per call. */
export class VectorEnv {
  /** N, the number of parallel episodes. */
  readonly num_envs: number;
  /** When finished episodes are reset. */
  readonly autoreset_mode: AutoresetMode;
  readonly #client: HarnessGymClient;
  readonly #opts: VectorEnvOptions;
  readonly #slots: Slot[];
  #ready = false;

  constructor(client: HarnessGymClient, opts: VectorEnvOptions) {
    if (!Number.isInteger(opts.num_envs) || opts.num_envs < 1) throw new RangeError('num_envs must be a positive integer');
    const g = opts.group_size;
    if (g !== undefined && (!Number.isInteger(g) || g < 1 || opts.num_envs % g !== 0))
      throw new RangeError('group_size must be a positive divisor of num_envs');
    this.#client = client;
    this.#opts = opts;
    this.num_envs = opts.num_envs;
    this.autoreset_mode = opts.autoreset_mode ?? 'next_step';
    const prefix = opts.id_prefix ?? 'venv';
    this.#slots = Array.from({ length: opts.num_envs }, (_, i) => ({
      episode_id: `${prefix}-${i}`,
      started: 0,
      seed: 0,
      needs_reset: false,
    }));
  }

  /** Episode ids of the slots, in env order. */
  get episode_ids(): string[] {
    return this.#slots.map((s) => s.episode_id);
  }

  /** Reset all N episodes in one frame (first call: seeds `seed + i`; later calls: the next seeds). */
  async reset(): Promise<VectorResetResult> {
    const indices = this.#slots.map((_, i) => i);
    const results = await this.#client.reset(indices.map((i) => this.#resetItem(i)));
    this.#ready = true;
    const observations: Observation[] = [];
    const infos: VectorInfo[] = [];
    results.forEach((r, i) => {
      const slot = this.#slots[i];
      slot.needs_reset = !r.ok;
      observations.push(r.ok ? r.observation : EMPTY_OBS());
      infos.push(this.#info(slot, r));
    });
    return { observations, infos };
  }

  /**
   * Step every env with its action (`actions[i]` for env i) in one `step` frame; envs due for an autoreset
   * are reset in one `reset` frame sent alongside. Actions of envs being reset are ignored.
   */
  async step(actions: readonly unknown[]): Promise<VectorStepResult> {
    if (!this.#ready) throw new HarnessGymError({ code: 'RESET_NEEDED', message: 'call reset() before step()' });
    if (actions.length !== this.num_envs) throw new RangeError(`expected ${this.num_envs} actions, got ${actions.length}`);
    const toReset: number[] = [];
    const toStep: number[] = [];
    this.#slots.forEach((s, i) => (s.needs_reset ? toReset : toStep).push(i));
    const [resets, steps] = await Promise.all([
      toReset.length > 0 ? this.#client.reset(toReset.map((i) => this.#resetItem(i))) : Promise.resolve([] as ResetResultItem[]),
      toStep.length > 0
        ? this.#client.step(toStep.map((i) => ({ episode_id: this.#slots[i].episode_id, action: actions[i] })))
        : Promise.resolve([] as StepResultItem[]),
    ]);

    const out: VectorStepResult = {
      observations: new Array<Observation>(this.num_envs),
      rewards: new Array<number>(this.num_envs).fill(0),
      terminateds: new Array<boolean>(this.num_envs).fill(false),
      truncateds: new Array<boolean>(this.num_envs).fill(false),
      infos: new Array<VectorInfo>(this.num_envs),
    };
    toReset.forEach((i, j) => this.#placeReset(out, i, resets[j]));
    const ended: number[] = [];
    toStep.forEach((i, j) => {
      const r = steps[j];
      const slot = this.#slots[i];
      out.infos[i] = this.#info(slot, r);
      if (!r.ok) {
        out.observations[i] = EMPTY_OBS();
        return;
      }
      out.observations[i] = r.observation;
      out.rewards[i] = r.reward;
      out.terminateds[i] = r.terminated;
      out.truncateds[i] = r.truncated;
      if (r.terminated || r.truncated) {
        slot.needs_reset = true;
        ended.push(i);
      }
    });

    if (this.autoreset_mode === 'same_step' && ended.length > 0) {
      const again = await this.#client.reset(ended.map((i) => this.#resetItem(i)));
      ended.forEach((i, j) => {
        const finalObservation = out.observations[i];
        const finalInfo = out.infos[i];
        const [reward, terminated, truncated] = [out.rewards[i], out.terminateds[i], out.truncateds[i]];
        this.#placeReset(out, i, again[j]);
        out.infos[i] = { ...out.infos[i], final_observation: finalObservation, final_info: finalInfo };
        // The slot reports the step that ended: its reward and flags stay (Gymnasium SAME_STEP).
        out.rewards[i] = reward;
        out.terminateds[i] = terminated;
        out.truncateds[i] = truncated;
      });
    }
    return out;
  }

  /** Close every slot's episode on the server (the client stays open). */
  async close(): Promise<void> {
    await this.#client.closeEpisodes(this.episode_ids);
    this.#ready = false;
  }

  #placeReset(out: VectorStepResult, i: number, r: ResetResultItem): void {
    const slot = this.#slots[i];
    slot.needs_reset = !r.ok;
    out.observations[i] = r.ok ? r.observation : EMPTY_OBS();
    out.rewards[i] = 0;
    out.terminateds[i] = false;
    out.truncateds[i] = false;
    out.infos[i] = { ...this.#info(slot, r), autoreset: true };
  }

  /** The next reset item of slot i; advances the slot's episode counter. */
  #resetItem(i: number): ResetItem {
    const slot = this.#slots[i];
    const n = this.num_envs;
    const k = slot.started++;
    const g = this.#opts.group_size;
    const base = g === undefined ? i : Math.floor(i / g) * g;
    slot.seed = (this.#opts.seed + base + k * n) >>> 0;
    const item: ResetItem = { ...(this.#opts.reset_template ?? {}), episode_id: slot.episode_id, seed: slot.seed };
    if (g !== undefined) {
      slot.group_id = `${this.#opts.id_prefix ?? 'venv'}-g${Math.floor(i / g)}.${k}`;
      item.group_id = slot.group_id;
    }
    return item;
  }

  #info(slot: Slot, r: ResetResultItem | StepResultItem): VectorInfo {
    const base: VectorInfo = { episode_id: slot.episode_id, seed: slot.seed };
    if (slot.group_id !== undefined) base.group_id = slot.group_id;
    return r.ok ? { ...r.info, ...base } : { ...base, error: r.error };
  }
}
