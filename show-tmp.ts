import { loadRecordInput } from './cli/files.js';
const recs = loadRecordInput(process.argv[2]);
const want = new Set(process.argv.slice(3));
for (const r of recs) { const x = r.record; if (want.size && ![...want].some(w => x.episode_id.startsWith(w))) continue;
  console.log('##', x.episode_id, '|', x.task.messages.join(' / '));
  console.log('   REPLY:', x.trace.final_reply);
  console.log('   FACTS:', JSON.stringify(x.task.answer_key.required_facts), 'FORBID:', JSON.stringify(x.task.answer_key.forbidden_facts));
  console.log('   CALLS:', x.trace.turns.flatMap(t=>t.calls.map(c=>c.name+JSON.stringify(c.arguments))).join(' '), ' REQ:', JSON.stringify(x.task.answer_key.required_calls.map(r=>r.any_of[0])));
}
