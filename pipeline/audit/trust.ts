// The trust rail (SPEC §12.1): the audit trusts only what the auditor supplies. A result that
// rests on a trust entry the study supplies for itself — a freeze anchor verified only under the
// study's TSA roots, a verified proof under an issuer key or TSA root the auditor did not pass, a
// freeze digest nothing independent pins — fails it, naming each entry and the flag that would
// confirm it. Adding trust is the only way a study's own policy can move a result (a key or root
// it pins can only make evidence verify), so only what verified is checked here.
import { join } from 'node:path';
import { studyOnlyWitnesses, type AnchorVerification } from '../freeze/anchors.ts';
import type { AuditorIssuerKeys, AuditorOperatorKey, AuditorRoots } from '../auditor/trust.ts';
import { sameKey } from '../evidence/intake/ed25519.ts';
import type { PinnedOperatorKey } from '../study/operator-key.ts';
import { loadTsaTrust } from '../evidence/timestamp/index.ts';
import type { TrustMaterialInputs } from '../formats/trust-policy.ts';
import { utcMillis } from '../formats/utc-instant.ts';
import { openMemoryDatabase } from '../store/db.ts';
import { VERIFIED_PROOF_TRUST } from '../store/statements.ts';
import { readJsonObjects } from '../store/query.ts';
import { railOf, type Difference, type Rail } from './rails.ts';
import type { RerunOutcome } from './rerun.ts';
import type { IntakeSeen } from './intake.ts';
import type { ReasonCode } from '../reasons.ts';

/** What the auditor passed on the command line, loaded. */
export interface AuditorTrust {
  roots: AuditorRoots | null;
  issuerKeys: AuditorIssuerKeys | null;
  /** --expect-freeze, lowercased; null when not given. */
  expectFreeze: string | null;
  /** --operator-key: the operator's identity as it published it; null when not given. */
  operatorKey: AuditorOperatorKey | null;
}

/** What check-anchors reported on the study (the anchors rail's run). */
export interface AnchorsSeen {
  roots: 'auditor' | 'study';
  witnesses: AnchorVerification[];
  independent_witnesses: number;
  min_witnesses: number;
}

interface VerifiedProof {
  system_id: string;
  item_id: string;
  attempt: number;
  key_id: string | null;
  proof_timestamp: string | null;
  tsa_gen_time: string | null;
  tsa_root_sha256: string | null;
}

async function verifiedProofs(proofChecksParquet: string): Promise<VerifiedProof[]> {
  const db = await openMemoryDatabase();
  try {
    return (await readJsonObjects(db.connection, VERIFIED_PROOF_TRUST, [proofChecksParquet])) as unknown as VerifiedProof[];
  } finally {
    db.close();
  }
}

const TRUST_FILE = 'preregistration/trust/policy.json';

/** The study's root files by the SHA-256 of each certificate they hold. */
function studyRootFiles(study: TrustMaterialInputs): Map<string, string> {
  const byDigest = new Map<string, string>();
  study.policy.tsa_roots.forEach((file, i) => {
    for (const digest of loadTsaTrust([study.tsaRootPems[i]!]).rootsSha256)
      if (!byDigest.has(digest)) byDigest.set(digest, `preregistration/trust/${file}`);
  });
  return byDigest;
}

/** The auditor's key history confirms the study's key for this proof: same key, window holding its times. */
function keyConfirmed(issuer: AuditorIssuerKeys, publicKey: string, times: readonly (string | null)[]): boolean {
  return issuer.keys.some((k) => {
    if (k.public_key !== publicKey) return false;
    const from = utcMillis(k.valid_from)!;
    const until = k.valid_until === null ? Infinity : utcMillis(k.valid_until)!;
    return times.every((t) => {
      if (t === null) return true;
      const at = utcMillis(t);
      return at !== undefined && from <= at && at < until;
    });
  });
}

const where = (p: VerifiedProof) => `${p.system_id}/${p.item_id}/${p.attempt}`;

function freezeDifferences(
  pinned: boolean,
  intake: IntakeSeen,
  anchors: AnchorsSeen | null,
  studyRoots: Map<string, string>,
): Difference[] {
  const out: Difference[] = [];
  if (!pinned && intake.pinningReceipts.length > 0) {
    // A receipt is the operator's only by the identity key; the study's own could have been replaced with the freeze.
    out.push({
      file: 'preregistration/freeze.json',
      message: `FREEZE_DIGEST_UNPINNED: ${intake.pinningReceipts.length} sealed receipt(s) name freeze_digest, but they are checked against the study's own operator_public_key, which a re-freeze could replace: pass the operator's published key with --operator-key, or --expect-freeze`,
    });
  } else if (!pinned) {
    out.push({
      file: 'preregistration/freeze.json',
      message:
        "FREEZE_DIGEST_UNPINNED: nothing the operator does not control pins freeze_digest; pass --expect-freeze with the digest published before opens_at, or --receipt with a participant's sealed intake receipt and --operator-key with the operator's published key",
    });
  }
  if (anchors === null) return out;
  const studyTrusted = studyOnlyWitnesses(anchors.witnesses);
  // With the auditor's roots, the freeze rests on study-only witnesses only when the auditor's fall short.
  if (anchors.roots === 'auditor' && anchors.independent_witnesses >= anchors.min_witnesses) return out;
  for (const w of studyTrusted) {
    const root = (w.root_sha256 && studyRoots.get(w.root_sha256)) ?? `root sha256 ${w.root_sha256}`;
    out.push({
      file: w.file,
      message: `freeze anchor ${w.witness} verifies only under the study's own TSA root ${root}: obtain that root out of band and pass it with --tsa-root`,
    });
  }
  return out;
}

function proofDifferences(
  proofs: readonly VerifiedProof[],
  auditor: AuditorTrust,
  study: TrustMaterialInputs,
  studyRoots: Map<string, string>,
): Difference[] {
  const out: Difference[] = [];
  const keyOf = new Map(study.policy.arkforge_keys.map((k) => [k.key_id, k.public_key]));
  const byKey = new Map<string, VerifiedProof[]>();
  const byRoot = new Map<string, VerifiedProof[]>();
  const auditorRoots = new Set(auditor.roots?.tsa.rootsSha256 ?? []);
  for (const p of proofs) {
    const publicKey = p.key_id === null ? undefined : keyOf.get(p.key_id);
    if (
      auditor.issuerKeys === null ||
      publicKey === undefined ||
      !keyConfirmed(auditor.issuerKeys, publicKey, [p.proof_timestamp, p.tsa_gen_time])
    ) {
      const key = p.key_id ?? '(none)';
      byKey.set(key, [...(byKey.get(key) ?? []), p]);
    }
    if (p.tsa_root_sha256 !== null && !auditorRoots.has(p.tsa_root_sha256))
      byRoot.set(p.tsa_root_sha256, [...(byRoot.get(p.tsa_root_sha256) ?? []), p]);
  }
  for (const [keyId, list] of byKey) {
    const flag =
      auditor.issuerKeys === null
        ? "pass the issuer's published key history with --issuer-keys"
        : `${auditor.issuerKeys.file} has no key ${keyOf.get(keyId) ?? keyId} whose window holds these proofs' times`;
    out.push({
      file: TRUST_FILE,
      message: `${list.length} verified proof(s) (first ${where(list[0]!)}) rest on the study's issuer key ${keyId}, which the auditor did not confirm: ${flag}`,
    });
  }
  for (const [root, list] of byRoot) {
    out.push({
      file: studyRoots.get(root) ?? TRUST_FILE,
      message: `${list.length} verified proof(s) (first ${where(list[0]!)}) have tokens that chain to the study's TSA root sha256 ${root}, which no --tsa-root confirms`,
    });
  }
  return out;
}

/** The intake's tokens (entries and seal anchors) that chain to no root the auditor supplied. */
function intakeDifferences(auditor: AuditorTrust, intake: IntakeSeen, studyRoots: Map<string, string>): Difference[] {
  const mine = new Set(auditor.roots?.tsa.rootsSha256 ?? []);
  const rootName = (r: string) => studyRoots.get(r) ?? `root sha256 ${r}`;
  const out: Difference[] = [];
  for (const t of intake.tokenRoots.filter((x) => x.kind === 'entry' && !mine.has(x.root_sha256))) {
    out.push({
      file: t.file,
      ...(t.line !== undefined ? { row: t.line } : {}),
      message: `the intake entry's token chains only to the study's own TSA root ${rootName(t.root_sha256)}: pass that root with --tsa-root once you have it out of band`,
    });
  }
  const seal = intake.tokenRoots.filter((x) => x.kind === 'seal');
  if (seal.length > 0 && !seal.some((x) => mine.has(x.root_sha256))) {
    out.push({
      file: seal[0]!.file,
      message: `SEAL_SELF_TRUSTED: every seal anchor chains only to the study's own TSA roots (${[...new Set(seal.map((x) => rootName(x.root_sha256)))].join(', ')}): pass the seal TSA's root with --tsa-root`,
    });
  }
  return out;
}

/** The study pins another operator key than the one the auditor obtained: its signatures and receipts are another identity's. */
function operatorKeyDifferences(auditor: AuditorTrust, studyKey: PinnedOperatorKey | null): Difference[] {
  if (auditor.operatorKey === null || (studyKey !== null && sameKey(studyKey.key, auditor.operatorKey.key))) return [];
  return [
    {
      file: studyKey?.file ?? TRUST_FILE,
      message: `OPERATOR_KEY_MISMATCH: the study's operator_public_key is not the key you passed with --operator-key (${auditor.operatorKey.file})`,
    },
  ];
}

export async function trustRail(
  auditor: AuditorTrust,
  anchors: AnchorsSeen | null,
  intake: IntakeSeen,
  study: TrustMaterialInputs | null,
  rerun: RerunOutcome,
  studyOperatorKey: PinnedOperatorKey | null = null,
): Promise<Rail> {
  const studyRoots = study ? studyRootFiles(study) : new Map<string, string>();
  // Receipts pin the freeze only when the auditor holds the identity that makes them the operator's.
  const receiptsPin = auditor.operatorKey !== null && intake.pinningReceipts.length > 0;
  const pinned = auditor.expectFreeze !== null || receiptsPin;
  const keyDifferences = operatorKeyDifferences(auditor, studyOperatorKey);
  const differences = [
    ...freezeDifferences(pinned, intake, anchors, studyRoots),
    ...keyDifferences,
    ...intakeDifferences(auditor, intake, studyRoots),
  ];
  let proofs = 0;
  if (rerun.ok && study) {
    const verified = await verifiedProofs(join(rerun.dir, 'proof_checks.parquet'));
    proofs = verified.length;
    differences.push(...proofDifferences(verified, auditor, study, studyRoots));
  } else if (!rerun.ok) {
    differences.push({
      file: rerun.refusal.file ?? 'preregistration/',
      message: 'the rerun refused, so what its verified proofs rest on is unknown',
    });
  }
  const codes: ReasonCode[] = [
    ...(pinned ? [] : ['FREEZE_DIGEST_UNPINNED' as const]),
    ...(keyDifferences.length > 0 ? ['OPERATOR_KEY_MISMATCH' as const] : []),
    ...(differences.some((d) => d.message.startsWith('SEAL_SELF_TRUSTED')) ? ['SEAL_SELF_TRUSTED' as const] : []),
  ];
  const by = [
    ...(auditor.expectFreeze !== null ? ['--expect-freeze'] : []),
    ...(receiptsPin ? [`${intake.pinningReceipts.length} sealed receipt(s) under --operator-key`] : []),
  ].join(' and ');
  return railOf(
    'trust',
    `freeze_digest pinned by ${by}; the intake's tokens, the freeze's ${anchors?.independent_witnesses ?? 0} witness(es) and the ${proofs} verified proof(s) rest only on roots and issuer keys you passed`,
    differences,
    codes,
  );
}
