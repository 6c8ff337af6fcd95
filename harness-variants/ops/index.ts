/** The operator registry: every HSA operator, grouped by family, in application order. */
import type { HarnessTransform } from '../types.js';
import { HOOK_OPS } from './hooks.js';
import { MCP_OPS } from './mcp.js';
import { PROMPT_OPS } from './prompt.js';
import { SKILL_OPS } from './skills.js';
import { TOOL_OPS } from './tools.js';

/** All operators. Families run in the order skills, tools, prompt, hooks. */
// MCP_OPS belong to the tools family and run right after the other tool operators.
export const OPERATORS: readonly HarnessTransform[] = [...SKILL_OPS, ...TOOL_OPS, ...MCP_OPS, ...PROMPT_OPS, ...HOOK_OPS];
