import { generateTask } from './env/tasks/generate.js';
const seen = new Map<string, string[]>();
for (const locale of ['en','zh-CN'] as const) for (let s=0;s<3000;s++){ const t=generateTask(s,locale);
  for (const f of [...t.answer_key.required_facts, ...t.answer_key.forbidden_facts.map(f=>({...f,key:'FORBID:'+f.key}))]) {
    const k = locale+' '+t.intent+' '+f.key.replace(/:.*/, ':*');
    if(!seen.has(k)) seen.set(k, []);
    const arr=seen.get(k)!; if(arr.length<3) arr.push(JSON.stringify(f.values)+'  <- '+t.messages.join(' / ').slice(0,60));
  }}
for (const [k,v] of [...seen].sort()) console.log(k+'\n   '+v.join('\n   '));
