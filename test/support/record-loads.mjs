// `node --import ./test/support/record-loads.mjs …`: appends the URL of every module the process
// loads through the ES module loader to the file PREREG_RECORD_LOADS names (test/cli/lazy-loading.test.ts).
import { register } from 'node:module';

register(`data:text/javascript,${encodeURIComponent(`
import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  appendFileSync(process.env.PREREG_RECORD_LOADS, url + '\\n');
  return next(url, context);
}`)}`);
