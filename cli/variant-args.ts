/**
 * The variant flags of `eval`, `rollout`, `variants show|report|sizes|sweep`: a preset or a VariantSpec
 * as JSON (`--variant`), and the spec's fields one by one (`--families`, `--intensity`,
 * `--identity-share`, `--split`) over the preset's. The result is checked with harness-variants'
 * `parseVariant`, the function the server resolves reset items with, before anything is sent, so a
 * typo is a usage error (exit 2) rather than a run of failed episodes.
 */
import type { Command } from 'commander';
import { FAMILIES, PRESETS, PRESET_NAMES, normalizeSpec, parseVariant } from '../harness-variants/index.js';
import type { VariantSpec } from '../harness-variants/index.js';
import { choiceOption, listArg, rateArg } from './args.js';
import { closest, usageError } from './errors.js';

/** The variant flags as commander hands them over. */
export interface VariantFlags {
  variant?: string;
  families?: string[];
  intensity?: number;
  identityShare?: number;
  split?: 'train' | 'eval';
}

/** A resolved variant: what a reset item carries (a preset name or a normalised spec) and its label. */
export interface ResolvedVariantFlags {
  variant: string | VariantSpec;
  /** The preset, or the spec as compact JSON (as summaries name it). */
  label: string;
  /** The spec (null for identity). */
  spec: VariantSpec | null;
}

const SPEC_EXAMPLE = `'{"families":["tools"],"intensity":0.3}'`;

/** Add `--variant`, `--families`, `--intensity`, `--identity-share` and `--split` to a command. */
export function addVariantOptions(cmd: Command, defaultPreset: string): Command {
  return cmd
    .option(
      '--variant <preset|json>',
      `harness variant: a preset (${PRESET_NAMES.join(', ')}) or a VariantSpec as JSON, e.g. ${SPEC_EXAMPLE} ` +
        `(fields: families, intensity, split, identity_share, seed; split defaults to train) (default: ${defaultPreset})`,
    )
    .option('--families <list>', `operator families, comma-separated: ${FAMILIES.join(', ')} (default: the preset's, all four)`, listArg('--families', FAMILIES))
    .option('--intensity <x>', 'probability in [0, 1] that each operator of an enabled family applies (train and eval: 0.6)', rateArg('--intensity'))
    .option('--identity-share <x>', 'fraction in [0, 1] of episodes given the base harness instead (default 0)', rateArg('--identity-share'))
    .addOption(choiceOption('--split <split>', "name pools and templates: train, or the held-out eval (default: the preset's)", ['train', 'eval']));
}

function parseJsonSpec(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw usageError(`--variant is not valid JSON (${(e as Error).message}); give a preset (${PRESET_NAMES.join(', ')}) or a VariantSpec such as ${SPEC_EXAMPLE}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const kind = Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`;
    throw usageError(`--variant: a VariantSpec must be a JSON object such as ${SPEC_EXAMPLE}, got ${kind} (${text}); or give a preset (${PRESET_NAMES.join(', ')})`);
  }
  return { ...(value as Record<string, unknown>) };
}

/**
 * Resolve the variant flags. An unmodified preset stays its name (summaries and records name it so);
 * anything else becomes a normalised VariantSpec. Throws a usage error naming what is wrong.
 */
export function resolveVariantFlags(f: VariantFlags, defaultPreset: string): ResolvedVariantFlags {
  const modified = f.families !== undefined || f.intensity !== undefined || f.identityShare !== undefined || f.split !== undefined;
  const given = f.variant?.trim();
  let base: Record<string, unknown>;
  // JSON is told from a preset name by its first character: an object is a spec; an array, a string
  // or a number is JSON too, and is told that a spec is an object.
  if (given !== undefined && /^[{["\d-]/.test(given)) {
    base = parseJsonSpec(given);
    if (base.split === undefined) base.split = 'train';
  } else {
    const preset = given ?? defaultPreset;
    if (!Object.hasOwn(PRESETS, preset)) {
      const near = closest(preset, PRESET_NAMES);
      throw usageError(
        `--variant must be a preset (${PRESET_NAMES.join(', ')}) or a VariantSpec as JSON such as ${SPEC_EXAMPLE}, got "${preset}"${near ? ` (did you mean ${near}?)` : ''}`,
      );
    }
    const spec = PRESETS[preset];
    if (!modified) return { variant: preset, label: preset, spec };
    if (spec === null) {
      // identity has no operators to tune: the flags start from train unless identity was asked for.
      if (given !== undefined) {
        throw usageError('--variant identity is the base harness: --families, --intensity, --identity-share and --split need train, eval or a spec');
      }
      base = { ...(PRESETS.train as VariantSpec) };
    } else {
      base = { ...spec };
    }
  }
  if (f.families !== undefined) base.families = f.families;
  if (f.intensity !== undefined) base.intensity = f.intensity;
  if (f.identityShare !== undefined) base.identity_share = f.identityShare;
  if (f.split !== undefined) base.split = f.split;
  const parsed = parseVariant(base);
  if (!parsed.ok) throw usageError(`--variant ${JSON.stringify(base)}: ${parsed.message}`);
  if (parsed.spec === null) return { variant: 'identity', label: 'identity', spec: null };
  const spec = normalizeSpec(parsed.spec);
  return { variant: spec, label: JSON.stringify(spec), spec };
}
