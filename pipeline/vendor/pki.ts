// pkijs and asn1js, imported through here only (one instance of each: pkijs's classes take the
// asn1js values our code decodes). Compiled, scripts/build.mjs replaces this module's .js with an
// esbuild bundle of both packages' ES module builds: Node loading them as published (CommonJS,
// 1 MB) spent 136–189 ms of CPU scanning them for their named exports in every process and
// worker; the bundle loads in 21–24 ms (docs/performance.md).
export * as asn1js from 'asn1js';
export * as pkijs from 'pkijs';
