// ArkForge proofs minted as the reference service does: the pipeline's TEST-ONLY issuer
// (pipeline/dev/arkforge-issuer.ts, which `prereg dev issue` runs), re-exported for the tests.
export * from '../../pipeline/dev/arkforge-issuer.ts';
