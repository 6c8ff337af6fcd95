// The risk-report service of examples/harness-v2 (docs/HARNESS.md "Custom services"): answers
// report_risk, bound to custom.risk-report in harness.yaml. It records nothing and changes no state: it
// validates the category and returns a ticket derived from the viewer and the category, so the same call
// always gets the same answer (services must be deterministic).
import { createHash } from 'node:crypto';

const CATEGORIES = ['medical', 'superlative', 'off_platform', 'other'];

function invalid(message, field) {
  return { ok: false, error: { code: 'INVALID_ARGUMENTS', message, field } };
}

export default {
  name: 'risk-report',
  version: '1.0.0',
  call(tool, args, ctx) {
    const category = args?.category;
    if (typeof category !== 'string') return invalid(`${tool}: category is required (one of ${CATEGORIES.join(', ')})`, 'category');
    if (!CATEGORIES.includes(category)) {
      return invalid(`${tool}: unknown category ${JSON.stringify(category)} (one of ${CATEGORIES.join(', ')})`, 'category');
    }
    const digest = createHash('sha256').update(`${ctx.viewer_id}\0${category}`).digest('hex');
    return { ok: true, result: { ticket_id: `rr_${digest.slice(0, 12)}`, category, queued: true } };
  },
};
