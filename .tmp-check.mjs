import { Ajv2020 } from 'ajv/dist/2020.js';
import { readdirSync, readFileSync } from 'node:fs';
const ajv = new Ajv2020({ allErrors: true, strict: true });
const v = {};
for (const f of readdirSync('schemas/cli')) { const s = JSON.parse(readFileSync(`schemas/cli/${f}`, 'utf8')); v[s.properties.schema_version.const] = ajv.compile(s); }
const shape = (a) => {
  const c = a[0];
  if (c === 'submission') return a[1] === 'build' ? 'submission-build' : 'submission-sign';
  if (c === 'trust') return a[1] === 'certify-intake-key' ? 'trust-certify-intake-key' : 'trust-import-arkforge';
  if (c === 'dev') return `dev-${a[1]}`;
  if (c === 'corpus-proof') return a.includes('--verify') ? 'corpus-proof-verify' : 'corpus-proof-prove';
  if (c === 'intake') return a.includes('--verify-receipt') ? 'intake-receipt' : 'intake';
  return c;
};
let n = 0;
for (const l of readFileSync('/tmp/cli-dump.jsonl', 'utf8').split('\n').filter(Boolean)) {
  const d = JSON.parse(l);
  for (let doc of d.lines) {
    if (doc.schema_version) continue;
    const sh = shape(d.args);
    if (sh === 'corpus-proof-prove') doc = { ok: true, proof: doc };
    const version = `prereg.${sh}/1`;
    const val = v[version];
    if (!val) { console.log('no schema', version); continue; }
    const full = { schema_version: version, ...doc };
    n++;
    if (!val(full)) console.log(version, JSON.stringify(val.errors).slice(0, 600));
    if (sh === 'run' && doc.stages) for (const [k, sd] of Object.entries(doc.stages)) { const vv = v[`prereg.${k}/1`]; if (!vv({ schema_version: `prereg.${k}/1`, ...sd })) console.log('run.' + k, JSON.stringify(vv.errors).slice(0, 400)); }
  }
}
console.log('checked', n);
