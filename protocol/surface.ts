/**
 * The bijection between a harness variant's surface forms (what the policy sees and writes) and the
 * canonical forms (what services, hooks' verdicts and rewards use). The identity map serves the base
 * harness; `harness-variants/` builds the others.
 */
import type { ToolError } from './domain.js';

/**
 * Why a mapped-back argument key belongs to no canonical parameter: given beside the object that wraps a
 * tool's arguments (`outside`), a wrapper that is not an object (`value`), the base harness's name of a
 * field the variant renamed (`base`).
 */
export type ForeignReason = 'outside' | 'value' | 'base';

/**
 * The mark of such a key in canonical arguments (and so in traces): `<key>\u0000<reason>`, a name no
 * schema has, so that validation reports it as unknown instead of silently accepting it.
 */
export const FOREIGN_MARK = '\u0000';

/** `key` marked as foreign for `reason`. */
export function foreignKey(key: string, reason: ForeignReason): string {
  return `${key}${FOREIGN_MARK}${reason}`;
}

/** The name and reason of a marked key, or null for a canonical one. */
export function readForeignKey(key: string): { name: string; reason: string } | null {
  const at = key.indexOf(FOREIGN_MARK);
  return at < 0 ? null : { name: key.slice(0, at), reason: key.slice(at + 1) };
}

/** Maps surface forms to canonical ones and back. Pure; shared by every episode of one variant. */
export interface SurfaceMap {
  /** Canonical tool name for a surface tool name; undefined when the variant has no such tool. */
  toolToCanonical(surface: string): string | undefined;
  /** Surface tool name of a canonical tool; undefined when the variant hides it. */
  toolToSurface(canonical: string): string | undefined;
  /**
   * Canonical arguments for a call in surface form (renamed, nested or flattened parameters).
   * An argument that belongs to no parameter is kept under its surface name so that schema validation
   * reports it (as `additionalProperties`).
   */
  argsToCanonical(canonicalTool: string, args: { [key: string]: unknown }): { [key: string]: unknown };
  /** Surface arguments for canonical ones (the inverse of `argsToCanonical`; the oracle writes with it). */
  argsToSurface(canonicalTool: string, args: { [key: string]: unknown }): { [key: string]: unknown };
  /** A canonical parameter path ("link_no", "a.b") as the variant names it, for error messages. */
  paramToSurface(canonicalTool: string, canonicalPath: string): string;
  /** Result data rendered with the variant's field names. */
  resultToSurface(canonicalTool: string, data: unknown): unknown;
  /** Canonical skill name for a surface skill name. */
  skillToCanonical(surface: string): string | undefined;
  /** Surface skill name for a canonical skill. */
  skillToSurface(canonical: string): string | undefined;
  /** A message written in canonical names (a service's error text) rewritten in the variant's names. */
  rewriteText(text: string): string;
}

/** Errors travel to the policy in surface form; this is the shape of a tool message's error payload. */
export interface SurfaceToolError {
  error: ToolError;
}

/** The identity map: the base harness's names are the canonical names. */
export class IdentityMap implements SurfaceMap {
  readonly #tools: ReadonlySet<string>;
  readonly #skills: ReadonlySet<string>;

  constructor(toolNames: Iterable<string>, skillNames: Iterable<string>) {
    this.#tools = new Set(toolNames);
    this.#skills = new Set(skillNames);
  }

  toolToCanonical(surface: string): string | undefined {
    return this.#tools.has(surface) ? surface : undefined;
  }

  toolToSurface(canonical: string): string | undefined {
    return this.#tools.has(canonical) ? canonical : undefined;
  }

  argsToCanonical(_tool: string, args: { [key: string]: unknown }): { [key: string]: unknown } {
    return args;
  }

  argsToSurface(_tool: string, args: { [key: string]: unknown }): { [key: string]: unknown } {
    return args;
  }

  paramToSurface(_tool: string, path: string): string {
    return path;
  }

  resultToSurface(_tool: string, data: unknown): unknown {
    return data;
  }

  skillToCanonical(surface: string): string | undefined {
    return this.#skills.has(surface) ? surface : undefined;
  }

  skillToSurface(canonical: string): string | undefined {
    return this.#skills.has(canonical) ? canonical : undefined;
  }

  rewriteText(text: string): string {
    return text;
  }
}
