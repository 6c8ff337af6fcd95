// examples/rewards/modules/brevity.mjs
/** brevity (reply): 1 at or under target_chars, falling linearly to 0 at twice the target. */
export default {
  name: 'brevity',
  version: '1.0.0',
  segment: 'reply',
  score(trace, task, params) {
    if (trace.final_reply === null) return { value: 0, reasons: ['no final reply'] };
    const target = typeof params.target_chars === 'number' ? params.target_chars : 60;
    const chars = Array.from(trace.final_reply).length; // characters, as the hooks count them
    const value = chars <= target ? 1 : Math.max(0, 1 - (chars - target) / target);
    return { value, reasons: [`${chars} chars (target ${target})`], evidence: { chars } };
  },
  // Optional: checked when a profile file is loaded, so a bad param is a start-up error.
  checkParams(params) {
    const t = params.target_chars;
    return t === undefined || (Number.isInteger(t) && t > 0) ? [] : ['target_chars: must be a positive integer'];
  },
};
