// Editing the trust policy from an issuer's published material (docs/trust.md). Pure: the stage
// (pipeline/commands/trust.ts) reads and writes the files.
export {
  parseArkForgeKeyHistory,
  planArkForgeImport,
  type ArkForgeKeyHistory,
  type ImportAction,
  type ImportedKey,
  type ImportPlan,
  type PublishedProofKey,
  type PublishedRekorKey,
} from './arkforge-keys.ts';
