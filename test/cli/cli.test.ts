import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REASONS } from '../../pipeline/reasons.ts';
import { COMMANDS } from '../../pipeline/stages/registry.ts';
import { PROJECT_ROOT, runCli } from '../support/cli.ts';

describe('the prereg CLI', () => {
  it('runs as `npx prereg` (bin entry, real process) with exit codes', () => {
    const ok = spawnSync('node', ['bin/prereg.mjs', 'explain', 'SECTION5_DRIFT', '--json'], { cwd: PROJECT_ROOT, encoding: 'utf8' });
    expect(ok.status).toBe(0);
    expect(JSON.parse(ok.stdout).codes[0]).toMatchObject({ code: 'SECTION5_DRIFT', known: true });
    const usage = spawnSync('node', ['bin/prereg.mjs', 'no-such-stage'], { cwd: PROJECT_ROOT, encoding: 'utf8' });
    expect(usage.status).toBe(2);
    expect(usage.stderr).toContain('USAGE');
  });

  it('gives --help for every command', async () => {
    for (const c of COMMANDS) {
      const r = await runCli([c.name, '--help']);
      expect(r.code, c.name).toBe(0);
      expect(r.stdout, c.name).toContain(`usage: prereg ${c.name}`);
    }
  });

  it('lists each command with the name, summary and stage its module declares', async () => {
    for (const entry of COMMANDS) {
      const command = await entry.load();
      expect({ name: command.name, summary: command.summary, stage: command.stage }, entry.name).toEqual({
        name: entry.name,
        summary: entry.summary,
        stage: entry.stage,
      });
    }
  });

  it('refuses an unknown option with exit 2', async () => {
    const r = await runCli(['check-anchors', '--no-such-option', '--json']);
    expect(r.code).toBe(2);
    expect(r.json.code).toBe('USAGE');
  });

  it('explains known codes and never turns an unknown one into a good result', async () => {
    const r = await runCli(['explain', 'CORPUS_DRIFT', 'NOT_A_CODE', '--json']);
    expect(r.code).toBe(1);
    expect(r.json.ok).toBe(false);
    expect(r.json.codes.map((c: { code: string; known: boolean }) => [c.code, c.known])).toEqual([
      ['CORPUS_DRIFT', true],
      ['NOT_A_CODE', false],
    ]);
    const all = await runCli(['explain', '--all', '--json']);
    expect(all.json.codes).toHaveLength(Object.keys(REASONS).length);
  });

  it('every reason code is UPPER_SNAKE with a meaning and a next step', () => {
    for (const [code, entry] of Object.entries(REASONS)) {
      expect(code).toMatch(/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/);
      expect(entry.meaning.length, code).toBeGreaterThan(10);
      expect(entry.next.length, code).toBeGreaterThan(5);
    }
  });
});

describe('corpus-proof', () => {
  it('proves one file of the frozen corpus, and the proof verifies with the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'prereg-proof-'));
    try {
      const r = await runCli(['corpus-proof', 'ccag-travaux.md', '--root', PROJECT_ROOT, '--json']);
      expect(r.code).toBe(0);
      // --json wraps the proof; the text output is the proof file itself.
      expect(r.json).toMatchObject({ ok: true, proof: { leaf: { path: 'ccag-travaux.md' }, tree_size: 4 } });
      expect(r.json.proof.audit_path).toHaveLength(2);
      const text = await runCli(['corpus-proof', 'ccag-travaux.md', '--root', PROJECT_ROOT]);
      expect(JSON.parse(text.stdout)).toEqual(r.json.proof);
      const proofFile = join(dir, 'proof.json');
      writeFileSync(proofFile, text.stdout);
      const file = join(PROJECT_ROOT, 'corpus/ccag-travaux.md');
      const ok = await runCli(['corpus-proof', '--verify', proofFile, '--file', file, '--root', PROJECT_ROOT, '--json']);
      expect(ok.code).toBe(0);

      const edited = join(dir, 'edited.md');
      writeFileSync(edited, `${readFileSync(file, 'utf8')} `);
      const wrongFile = await runCli(['corpus-proof', '--verify', proofFile, '--file', edited, '--root', PROJECT_ROOT, '--json']);
      expect(wrongFile.code).toBe(1);
      expect(wrongFile.json.codes).toEqual(['CORPUS_PROOF_INVALID']);

      writeFileSync(proofFile, JSON.stringify({ ...r.json.proof, index: 1 }));
      const wrongIndex = await runCli(['corpus-proof', '--verify', proofFile, '--root', PROJECT_ROOT, '--json']);
      expect(wrongIndex.code).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a proof file that is not a corpus proof with CORPUS_PROOF_MALFORMED (exit 3), not an internal error', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'prereg-proof-'));
    try {
      const r = await runCli(['corpus-proof', 'ccag-travaux.md', '--root', PROJECT_ROOT, '--json']);
      const proof = r.json.proof as Record<string, unknown>;
      const proofFile = join(dir, 'proof.json');
      const { audit_path: auditPath, ...withoutPath } = proof;
      for (const broken of [
        withoutPath,
        { ...proof, audit_path: [(auditPath as string[])[0]!.slice(0, 60)] },
        { ...proof, leaf: null },
        [1, 2],
      ]) {
        writeFileSync(proofFile, JSON.stringify(broken));
        const bad = await runCli(['corpus-proof', '--verify', proofFile, '--root', PROJECT_ROOT, '--json']);
        expect(bad.code).toBe(3);
        expect(bad.json.code).toBe('CORPUS_PROOF_MALFORMED');
      }
      // A path node of 64 characters with bad hex is malformed too, not a truncated hash.
      writeFileSync(
        proofFile,
        JSON.stringify({ ...proof, audit_path: [`${(auditPath as string[])[0]!.slice(0, 62)}zz`, (auditPath as string[])[1]] }),
      );
      const badHex = await runCli(['corpus-proof', '--verify', proofFile, '--root', PROJECT_ROOT, '--json']);
      expect(badHex.json.code).toBe('CORPUS_PROOF_MALFORMED');
      // A hash of 31 bytes (62 hex digits) and one of an odd number of digits, wherever the proof holds one: each named.
      const leaf = proof.leaf as Record<string, unknown>;
      const [node, other] = auditPath as string[];
      for (const [broken, named] of [
        [{ ...proof, audit_path: [node!.slice(0, 62), other] }, 'audit_path'],
        [{ ...proof, audit_path: [`${node}0`, other] }, 'audit_path'],
        [{ ...proof, leaf: { ...leaf, sha256: String(leaf.sha256).slice(0, 62) } }, 'leaf'],
        [{ ...proof, corpus_root: String(proof.corpus_root).slice(0, 63) }, 'corpus_root'],
      ] as const) {
        writeFileSync(proofFile, JSON.stringify(broken));
        const bad = await runCli(['corpus-proof', '--verify', proofFile, '--root', PROJECT_ROOT, '--json']);
        expect([bad.code, bad.json.code]).toEqual([3, 'CORPUS_PROOF_MALFORMED']);
        expect(bad.json.message).toContain(proofFile);
        expect(bad.json.message).toContain(named);
      }
      // The root to check against, given on the command line: 31 bytes, or bad hex, is a usage error, not a proof that fails.
      writeFileSync(proofFile, JSON.stringify(proof));
      for (const root of [String(proof.corpus_root).slice(0, 62), `${String(proof.corpus_root).slice(0, 63)}g`]) {
        const bad = await runCli(['corpus-proof', '--verify', proofFile, '--corpus-root', root, '--root', PROJECT_ROOT, '--json']);
        expect([bad.code, bad.json.code]).toEqual([2, 'USAGE']);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a path that is not in the frozen corpus', async () => {
    const r = await runCli(['corpus-proof', 'nope.md', '--root', PROJECT_ROOT, '--json']);
    expect(r.code).toBe(1);
    expect(r.json.code).toBe('CORPUS_FILE_UNKNOWN');
  });
});
