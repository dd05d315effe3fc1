// A rival's commitments against an honest system's timelines (SPEC §12.3, issue 21 row 2),
// replayed on a hand-built registered study run end to end from the CLI (`prereg run`), reading
// results.json. Anyone may publish a commitment naming any job_id before closes_at; only one that
// binds the timeline's owner (signed by one of its agent_keys, or received from it through intake
// as inputs/commitments/<owner>.jsonl) may make COMMITMENT_CONFLICT. Everything else that differs
// is COMMITMENT_FOREIGN, informational: the honest system's proven score must not move.
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { signCanonical } from '../../pipeline/evidence/intake/ed25519.ts';
import { canonicalJson } from '../../pipeline/formats/canonical-json.ts';
import { articlePassages } from '../../scripts/generate-example-submissions.ts';
import { PROJECT_ROOT, runCli, TEST_OPERATOR_ARGS } from '../support/cli.ts';
import { buildSmallStudy, type HandRecord, type SmallStudyOptions } from '../support/small-study.ts';
import { queryStore } from '../support/store-query.ts';

const passages = articlePassages(join(PROJECT_ROOT, 'corpus'), [
  'code-commande-publique/partie-reglementaire.md',
  'code-commande-publique/partie-legislative.md',
  'ccag-travaux.md',
]);
const served = (...refs: string[]) => refs.map((ref) => ({ ref, text: passages.get(ref)! }));

/** Three positives answered with their expected reference, each with the system's own evidence. */
function answers(system: string): HandRecord[] {
  return [
    {
      system,
      item: 'mp-001',
      attempt: 1,
      text: "Selon l'article R2122-8, le seuil est de 40 000 euros hors taxes.",
      passages: served('R2122-8'),
    },
    { system, item: 'mp-014', attempt: 1, text: 'Voir le CCAG Travaux 4.', passages: served('CCAG Travaux 4') },
    {
      system,
      item: 'mp-005',
      attempt: 1,
      text: "Selon l'article R2121-1, la valeur estimée du besoin est calculée.",
      passages: served('R2121-1'),
    },
  ];
}

type Commitment = Record<string, unknown> & { job_id: string; final_entry_digest: string; entry_count: number };

/** The honest commitments buildSmallStudy wrote to inputs/commitments.jsonl. */
function commitmentsOf(root: string): Commitment[] {
  return readFileSync(join(root, 'inputs/commitments.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Commitment);
}

/** The same job, count and date, another final digest: what a rival can publish without anything of the owner's. */
const otherDigest = (c: Commitment): Commitment => ({
  ...c,
  final_entry_digest: 'e'.repeat(64),
  witness: 'rival-mirror',
  retrieved_via: 'https://rival.example/commitments',
});

const keys = { 'sys-honest': generateKeyPairSync('ed25519').privateKey, rival: generateKeyPairSync('ed25519').privateKey };
const signed = (c: Commitment, key: KeyObject) => ({ ...c, signature: signCanonical(key, c) });
const lines = (cs: readonly unknown[]) => `${cs.map((c) => canonicalJson(c)).join('\n')}\n`;

interface Outcome {
  proven: Record<string, string>;
  chains: Array<{ system_id: string; status: string; reason_codes: string[]; informational_codes: string[] }>;
  /** What a participant sees checking the same submission file in the study (`prereg verify FILE --root`): each timeline's status and codes. */
  files: Array<{ status: string; reason_codes: string[]; informational_codes: string[] }>;
}

/** positives_citing_expected per system ("proven/n_proven") and sys-honest's chain_checks rows, after `tamper` and `prereg run`. */
async function runWith(tamper: Tamper, options: SmallStudyOptions = {}): Promise<Outcome> {
  const study = await buildSmallStudy([...answers('sys-honest'), { ...answers('rival')[0]!, item: 'mp-002' }], options);
  try {
    tamper(
      study.root,
      commitmentsOf(study.root).filter((c) => c.job_id.startsWith('job-sys-honest/')),
    );
    const run = await runCli(['run', '--root', study.root, '--outputs', join(study.root, 'outputs'), ...TEST_OPERATOR_ARGS, '--json']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const results = JSON.parse(readFileSync(join(run.json.dir, 'results.json'), 'utf8')) as { scores: Array<Record<string, unknown>> };
    const proven = Object.fromEntries(
      results.scores
        .filter((s) => s.metric === 'positives_citing_expected')
        .map((s) => [s.system_id, `${String(s.proven)}/${String(s.n_proven)}`]),
    );
    const rows = await queryStore(study.root, "SELECT * FROM chain_checks WHERE system_id = 'sys-honest' ORDER BY record_id");
    const chains = rows.map((r) => ({
      system_id: String(r.system_id),
      status: String(r.status),
      reason_codes: r.reason_codes as string[],
      informational_codes: (r.informational_codes ?? null) as string[],
    }));
    const checked = await runCli(['verify', join(study.root, 'inputs/submissions/sys-honest.jsonl'), '--root', study.root, '--json']);
    const files = checked.jsonLines
      .filter((l) => l.kind === 'chain')
      .map((l) => ({
        status: String(l.status),
        reason_codes: l.reason_codes as string[],
        informational_codes: l.informational_codes as string[],
      }));
    return { proven, chains, files };
  } finally {
    study.cleanup();
  }
}

const withKeys = { agentKeys: keys };
type Tamper = (root: string, honest: Commitment[]) => void;
/** Appends the commitments `make` writes from the honest ones to the operator-collected file. */
const published =
  (make: (c: Commitment) => unknown): Tamper =>
  (root, honest) =>
    appendFileSync(join(root, 'inputs/commitments.jsonl'), lines(honest.map(make)));
/** Writes them as `system`'s own commitments file, received through intake. */
const throughIntake =
  (system: string, make: (c: Commitment) => unknown): Tamper =>
  (root, honest) => {
    mkdirSync(join(root, 'inputs/commitments'), { recursive: true });
    writeFileSync(join(root, `inputs/commitments/${system}.jsonl`), lines(honest.map(make)));
  };
const informational = (...reason_codes: string[]) => ({
  status: 'ANCHORED',
  reason_codes: reason_codes,
  informational_codes: reason_codes,
});
const anchored = informational();
const foreign = informational('COMMITMENT_FOREIGN');
const badSignature = informational('COMMITMENT_FOREIGN', 'COMMITMENT_SIGNATURE_INVALID');
const conflict = { status: 'UNANCHORED', reason_codes: ['COMMITMENT_CONFLICT'], informational_codes: [] };

/** Each row: what is published, the study's options, sys-honest's proven score, and each of its three chain_checks rows. */
type Row = [string, Tamper, SmallStudyOptions, string, Partial<Outcome['chains'][number]>];
const replay = async (tamper: Tamper, options: SmallStudyOptions, proven: string, row: Partial<Outcome['chains'][number]>) => {
  const out = await runWith(tamper, options);
  expect(out.proven['sys-honest']).toBe(proven);
  expect(out.chains).toHaveLength(3);
  for (const c of out.chains) expect(c).toMatchObject(row);
  // The participant's own check agrees with the study: the same commitments, agent keys and owner.
  expect(out.files).toHaveLength(3);
  for (const f of out.files)
    expect(f).toMatchObject({ status: row.status, reason_codes: row.reason_codes, informational_codes: row.informational_codes });
};

describe("a rival cannot unanchor an honest system's timelines by publishing commitments", () => {
  it.each<Row>([
    [
      'alone, the honest timelines are anchored by their unsigned witness commitments (the AER-1 -09 shape): 3/3',
      () => {},
      withKeys,
      '3/48',
      anchored,
    ],
    [
      'one unsigned commitment per honest job_id naming another final digest, before closes_at (was 0/3, COMMITMENT_CONFLICT): COMMITMENT_FOREIGN, 3/3',
      published(otherDigest),
      {},
      '3/48',
      foreign,
    ],
    [
      "the same, signed with the rival's own registered agent key: a valid signature, not the owner's: 3/3",
      published((c) => signed(otherDigest(c), keys.rival)),
      withKeys,
      '3/48',
      foreign,
    ],
    [
      "the same, in the rival's own intake file inputs/commitments/rival.jsonl: binds the rival, not the owner: 3/3",
      throughIntake('rival', otherDigest),
      withKeys,
      '3/48',
      foreign,
    ],
    [
      "signed by the owner's key over other bytes (the digest changed after signing): COMMITMENT_SIGNATURE_INVALID, read as unsigned: 3/3",
      published((c) => ({ ...signed(c, keys['sys-honest']), final_entry_digest: 'e'.repeat(64) })),
      withKeys,
      '3/48',
      badSignature,
    ],
    [
      'signed by a key the study does not register (no agent keys at all): COMMITMENT_SIGNATURE_INVALID, nothing binds the owner: 3/3',
      published((c) => signed(otherDigest(c), keys['sys-honest'])),
      {},
      '3/48',
      badSignature,
    ],
  ])('%s', async (_, tamper, options, proven, row) => replay(tamper, options, proven, row), 180_000);
});

describe("the owner's own conflicting commitment still cancels its timeline (COMMITMENT_CONFLICT)", () => {
  it.each<Row>([
    ['signed with its registered agent key: 0/3', published((c) => signed(otherDigest(c), keys['sys-honest'])), withKeys, '0/48', conflict],
    [
      'unsigned, in its own intake file inputs/commitments/sys-honest.jsonl: 0/3',
      throughIntake('sys-honest', otherDigest),
      {},
      '0/48',
      conflict,
    ],
  ])('%s', async (_, tamper, options, proven, row) => replay(tamper, options, proven, row), 180_000);
});
