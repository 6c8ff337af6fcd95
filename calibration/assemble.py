import glob, hashlib, json, os, sys
import msgpack
raw='/work/corpus-raw'; out=sys.argv[1] if len(sys.argv)>1 else '/work/corpus-work/corpus'
os.makedirs(out, exist_ok=True)
alias=lambda e: "ep-"+hashlib.sha1(e.encode()).hexdigest()[:10]
recs={}; header=None
for f in sorted(glob.glob(raw+'/*.hgrec')):
    with open(f,'rb') as fh:
        for v in msgpack.Unpacker(fh, raw=False, strict_map_key=False):
            if isinstance(v, dict) and v.get('type')=='episode': recs[v['episode_id']]=v
            elif header is None: header=v
amap={alias(e):e for e in recs}
flaws={}
for f in glob.glob('/work/corpus-work/f*-flaws.jsonl'):
    for line in open(f):
        if line.strip():
            try: d=json.loads(line); flaws[d['episode']]=d
            except Exception: pass
grades=[]; seen=set()
for f in sorted(glob.glob('/work/corpus-work/grades-*.jsonl')):
    for line in open(f):
        if not line.strip(): continue
        try: g=json.loads(line)
        except Exception: continue
        e=g['episode']; e=amap.get(e,e)
        if e not in recs or e in seen: continue
        seen.add(e)
        row={'episode':e,'grade':float(g['grade']),'verdict':g['verdict']}
        if g.get('why'): row['why']=g['why']
        if e.startswith('f'):
            row['flawed']=True
            if e in flaws: row['flaw']=flaws[e]['flaw']
        grades.append(row)
grades.sort(key=lambda r:r['episode'])
with open(out+'/grades.jsonl','w') as fh:
    for r in grades: fh.write(json.dumps(r, ensure_ascii=False)+'\n')
with open(out+'/corpus.hgrec','wb') as fh:
    fh.write(msgpack.packb(header, use_bin_type=True))
    for r in grades: fh.write(msgpack.packb(recs[r['episode']], use_bin_type=True))
print(len(grades),'graded of',len(recs),'records')
