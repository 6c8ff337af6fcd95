/**
 * The module registry: reward designers register their own modules next to (or instead of) the
 * built-in five and pick them by name in a profile, without touching the server.
 */
import { accuracyModule } from './modules/accuracy.js';
import { effectivenessModule } from './modules/effectiveness.js';
import { hookComplianceModule } from './modules/hook-compliance.js';
import { skillSelectionModule } from './modules/skill-selection.js';
import { toolRationalityModule } from './modules/tool-rationality.js';
import type { RewardModule } from './types.js';

/** Reward modules by name, in registration order. */
export class RewardRegistry {
  #modules = new Map<string, RewardModule>();

  /**
   * Register a module. Registering a name again replaces the earlier module (in its original list
   * position), so a designer can override a built-in. A module without a name or with an unknown
   * segment is a programmer error and throws.
   */
  register(m: RewardModule): void {
    if (typeof m.name !== 'string' || m.name.length === 0) throw new TypeError('reward module needs a non-empty name');
    if (m.segment !== 'tool' && m.segment !== 'reply') {
      throw new TypeError(`reward module ${m.name}: segment must be 'tool' or 'reply'`);
    }
    this.#modules.set(m.name, m);
  }

  /** The module registered under `name`, if any. */
  get(name: string): RewardModule | undefined {
    return this.#modules.get(name);
  }

  /** All modules, in registration order. */
  list(): RewardModule[] {
    return [...this.#modules.values()];
  }
}

/** The five built-in modules. */
export const BUILTIN_MODULES: readonly RewardModule[] = [
  accuracyModule,
  effectivenessModule,
  hookComplianceModule,
  toolRationalityModule,
  skillSelectionModule,
];

/** A fresh registry holding the five built-in modules (fresh, so callers may extend it freely). */
export function defaultRegistry(): RewardRegistry {
  const r = new RewardRegistry();
  for (const m of BUILTIN_MODULES) r.register(m);
  return r;
}
