// The work of `prereg check-anchors` (what CI runs; the command: stages/check-anchors.ts, and the audit's anchors rail): offline, recomputes every frozen digest from the files and
// verifies every anchor token against the pinned TSA roots. Exit 0 all good, 1 drift or a bad
// anchor, 3 when it cannot run at all (no freeze.json, unreadable study.json).
import { existsSync } from 'node:fs';
import { checkReveal } from '../study/answer-key.ts';
import { readAnswerKey, resolveSecret } from './answer-key-file.ts';
import {
  countIndependentWitnesses,
  expectedFreeze,
  requiredWitnesses,
  studyOnlyWitnesses,
  verifyChainAnchors,
  type AnchorVerification,
} from './anchors.ts';
import { loadAuditorRoots } from '../auditor/trust.ts';
import { compareDigests, type DriftFinding } from '../study/drift.ts';
import { computePublicDigests } from '../study/public-digests.ts';
import { readFreezeChain } from '../study/freeze-chain.ts';
import { shownJson } from '../text/display.ts';
import { loadStudyFiles } from '../study/loaded-study.ts';
import { planProblems } from './plan-check.ts';
import { studyLayout } from '../layout.ts';
import { EXIT } from '../reasons.ts';
import type { StageContext, StageResult } from '../command.ts';

/** `prereg check-anchors` on the study at ctx.root, with the auditor's flags in ctx.values. */
export async function runCheckAnchors(ctx: StageContext): Promise<StageResult> {
  const layout = studyLayout(ctx.root);
  const loaded = loadStudyFiles(layout);
  const frozen = loaded.frozen();
  const study = loaded.study();
  const digest = loaded.freezeDigest();
  // The trust roots the anchors are checked under are decoded from the bytes trust_root hashed.
  const current = computePublicDigests(loaded);
  const { digests, findings } = compareDigests(frozen, current, study);

  const answerKey = checkRevealedKey(layout, ctx.env, frozen.answer_key);
  if (answerKey.checked && !answerKey.ok) {
    findings.push({
      code: 'ANSWER_KEY_COMMITMENT_MISMATCH',
      field: 'answer_key.root',
      file: 'inputs/answer-key.jsonl',
      message: answerKey.problems.join('; '),
    });
  }

  // The same checks as freeze: a plan that could not run is drift CI must see.
  for (const p of await planProblems(loaded, current)) {
    findings.push({ code: p.code, field: p.field, file: p.file, message: `${p.line !== undefined ? `line ${p.line}: ` : ''}${p.message}` });
  }

  const expected = expectedFreeze(ctx.values['expect-freeze']);
  if (expected !== null && expected !== digest) {
    findings.push({
      code: 'FREEZE_DIGEST_UNEXPECTED',
      field: 'freeze_digest',
      file: 'preregistration/freeze.json',
      message: `the study's freeze_digest is ${digest}; the one you expected (--expect-freeze) is ${expected}`,
    });
  }

  const trust = loaded.trust();
  const auditor = loadAuditorRoots(ctx.values['tsa-root'] as string[] | undefined, trust.material.inputs);
  const roots = { study: trust.tsa, auditor: auditor?.tsa ?? null };
  // Every freeze of the chain is anchored before the window first announced opened (docs/preregistration.md, "Amendments").
  const chain = readFreezeChain(layout, frozen, digest);
  for (const f of chain.findings) findings.push({ code: f.code, field: 'amends', file: f.file, message: f.message });
  const anchored = await verifyChainAnchors(chain, roots);
  const links = anchored.links.map(({ link, witnesses: linkWitnesses }) => ({
    n: link.n,
    file: link.file,
    freeze_digest: link.freeze_digest,
    amends: link.record.amends ?? null,
    opens_at: link.record.window.opens_at,
    witnesses: linkWitnesses,
  }));
  for (const { code, anchor: w, keptFreeze } of anchored.failing) {
    findings.push({
      code,
      field: 'anchors',
      file: w.file,
      message: `${w.witness}: ${w.reason_codes.join(', ')}${w.metadata_problems.length > 0 ? ` (${w.witness}.json: ${w.metadata_problems.join('; ')})` : ''}${keptFreeze !== null ? ` (anchor of the kept freeze ${keptFreeze})` : ''}`,
    });
  }
  const witnesses = links[0]!.witnesses;
  const rootsUsed: 'auditor' | 'study' = auditor ? 'auditor' : 'study';
  const independent = countIndependentWitnesses(witnesses, rootsUsed);
  const studyOnly = auditor ? studyOnlyWitnesses(witnesses) : [];
  const required = requiredWitnesses(ctx.values['min-witnesses'], study.anchors.min_witnesses);
  if (independent < required) {
    const under = auditor ? 'the roots you passed (--tsa-root)' : "the study's own roots";
    const more =
      studyOnly.length > 0
        ? `; ${studyOnly.length} more (${studyOnly.map((w) => w.witness).join(', ')}) verify only under the study's own roots: obtain their roots out of band and pass them with --tsa-root to count them`
        : '';
    findings.push({
      code: 'ANCHOR_INSUFFICIENT',
      field: 'anchors',
      message: `${independent} independent witness(es) under ${under} confirm freeze_digest; ${required} required${more}`,
    });
  }

  const reasonCodes = [...new Set(findings.map((f) => f.code))].sort();
  const ok = findings.length === 0;
  const json = {
    ok,
    study_id: frozen.study_id,
    freeze_digest: digest,
    digests: { ...digests, answer_key_root: answerKey.summary },
    witnesses,
    roots: rootsUsed,
    expected_freeze: expected,
    independent_witnesses: independent,
    study_only_witnesses: studyOnly.map((w) => w.witness),
    min_witnesses: required,
    // Oldest first: the first freeze, then each amendment (only the current freeze when it amends none).
    chain: [...links].reverse(),
    findings,
    reason_codes: reasonCodes,
  };
  return { exitCode: ok ? EXIT.ok : EXIT.failures, json, text: render(json, findings, witnesses) };
}

function checkRevealedKey(layout: ReturnType<typeof studyLayout>, env: NodeJS.ProcessEnv, frozen: Parameters<typeof checkReveal>[2]) {
  const secret = existsSync(layout.answerKey) ? resolveSecret(layout, undefined, env) : null;
  if (!secret) {
    return {
      checked: false,
      ok: null,
      problems: [] as string[],
      summary: { frozen: frozen.root, recomputed: null, ok: null, note: 'answer key not revealed: commitment not checked' },
    };
  }
  const reveal = checkReveal(secret, readAnswerKey(layout.answerKey), frozen);
  return {
    checked: true,
    ok: reveal.ok,
    problems: reveal.problems,
    summary: {
      frozen: frozen.root,
      recomputed: reveal.ok ? frozen.root : 'differs',
      ok: reveal.ok,
      note: reveal.problems.join('; ') || 'revealed key reproduces the commitment',
    },
  };
}

interface ChainEntry {
  n: number | null;
  freeze_digest: string;
  amends: { freeze_digest: string; reason: string } | null;
  witnesses: AnchorVerification[];
}

function render(
  json: {
    ok: boolean;
    freeze_digest: string;
    roots: 'auditor' | 'study';
    expected_freeze: string | null;
    independent_witnesses: number;
    min_witnesses: number;
    digests: Record<string, { ok: boolean | null }>;
    chain: ChainEntry[];
  },
  findings: DriftFinding[],
  witnesses: AnchorVerification[],
): string {
  const lines = [
    `freeze_digest ${json.freeze_digest}${json.expected_freeze === null ? ' (not compared: no --expect-freeze)' : json.expected_freeze === json.freeze_digest ? ' (as expected)' : ''}`,
  ];
  if (json.chain.length > 1) {
    lines.push(`  amendments: ${json.chain.length - 1} (the chain of freezes, oldest first)`);
    for (const c of json.chain) {
      const where = c.n === null ? 'preregistration/freeze.json' : `preregistration/amendments/${c.n}/`;
      const anchors = c.witnesses.map((w) => `${w.ok ? 'ok' : 'FAIL'} ${w.witness} ${w.gen_time ?? '?'}`).join(', ') || 'no anchor';
      lines.push(
        `    ${c.freeze_digest} ${where}${c.amends ? ` amends ${c.amends.freeze_digest.slice(0, 12)}…: ${shownJson(c.amends.reason)}` : ''} [${anchors}]`,
      );
    }
  }
  for (const [name, d] of Object.entries(json.digests)) lines.push(`  ${d.ok === null ? 'skip' : d.ok ? 'ok  ' : 'FAIL'}  ${name}`);
  for (const w of witnesses) {
    const only = json.roots === 'auditor' && w.trusted_by === 'study' ? " (under the study's own roots only: not counted)" : '';
    lines.push(`  ${w.ok ? 'ok  ' : 'FAIL'}  anchor ${w.witness} genTime ${w.gen_time ?? '?'} ${w.reason_codes.join(' ')}${only}`);
  }
  lines.push(
    json.roots === 'auditor'
      ? 'roots: the ones you passed (--tsa-root)'
      : "roots: the study's own (preregistration/trust/): an auditor passes its own with --tsa-root",
  );
  lines.push(
    `${json.independent_witnesses} independent witness(es), by distinct root, confirm the freeze (required: ${json.min_witnesses})`,
  );
  for (const f of findings) lines.push(`${f.code}: ${f.file ? `${f.file}: ` : ''}${f.field}: ${f.message}`);
  lines.push(json.ok ? 'check-anchors: OK' : 'check-anchors: FAILED');
  return lines.join('\n');
}
