// The rails that read the audited directory alone: complete, schema and digests.
//
// Naming the changed file. The directory holds three accounts of every data file — the file
// itself, its manifest entry and its SHA256SUMS line — and two of manifest.json (the file and its
// SHA256SUMS line), with the manifest's own artifact_digest as a self-check. When two accounts
// agree, the third is the one that changed, and that is the file named.
import { sha256Hex } from '../formats/hash.ts';
import { join } from 'node:path';
import {
  artifactDigestOf,
  DATA_FILES,
  decisionDigest,
  MANIFEST_FILE,
  manifestBytes,
  runIdOf,
  sha256sums,
  SUMS_FILE,
  type Manifest,
} from '../emit/manifest.ts';
import type { EmitInputs } from '../results/shapes.ts';
import type { JsonValue } from '../formats/canonical-json.ts';
import { OUTPUT_FILES, manifestProblems, parseSums, resultsProblems, type AuditedDir } from './recorded.ts';
import { failed, passed, railOf, type Difference, type Rail } from './rails.ts';
import { readRegularFile } from '../io/regular-file.ts';

export function completeRail(audited: AuditedDir): Rail {
  if (audited.manifest) return passed('complete', 'manifest.json is present: the emit that wrote this directory completed');
  return failed('complete', 'no manifest.json: the directory is incomplete (an interrupted or unfinished emit) and is not a result', [
    { file: MANIFEST_FILE, message: 'is missing; emit writes it last, so a directory without it is incomplete' },
  ]);
}

/** The 1-based line of the first byte at which two buffers differ (or where the shorter ends). */
export function firstDifferingLine(a: Uint8Array, b: Uint8Array): { line: number; offset: number } {
  const n = Math.min(a.length, b.length);
  let line = 1;
  for (let i = 0; i < n; i++) {
    if (a[i] !== b[i]) return { line, offset: i };
    if (a[i] === 0x0a) line++;
  }
  return { line, offset: n };
}

export interface SchemaOutcome {
  rail: Rail;
  /**
   * manifest.json parses, is canonical, has every field, agrees with its SHA256SUMS line and its
   * artifact_digest recomputes: a signature that fails over it is then the signature's fault.
   */
  manifestIntact: boolean;
}

export function schemaRail(audited: AuditedDir): SchemaOutcome {
  const d: Difference[] = [];
  const done = (manifestIntact: boolean): SchemaOutcome => ({
    rail: railOf(
      'schema',
      'manifest.json is canonical with every field; results.json parses; SHA256SUMS lists exactly the outputs and manifest.json; every file has its listed size and SHA-256',
      d,
    ),
    manifestIntact: manifestIntact && d.length === 0,
  });
  const m = audited.manifest;
  if (!m) {
    d.push({ file: MANIFEST_FILE, message: 'is missing' });
    return done(false);
  }
  if (!m.value) {
    d.push(m.error!);
    return done(false);
  }
  const canonical = manifestBytes(m.value as unknown as Manifest);
  if (!canonical.equals(m.bytes)) {
    const at = firstDifferingLine(m.bytes, canonical);
    d.push({
      file: MANIFEST_FILE,
      row: at.line,
      message: `is not canonical JSON and a newline: byte ${at.offset} differs from the canonical form of its own content`,
    });
  }
  const problems = manifestProblems(m.value);
  if (problems.length > 0 || !audited.fields) {
    d.push({ file: MANIFEST_FILE, message: `lacks required fields: ${problems.join('; ')}` });
    return done(false);
  }
  const manifest = audited.fields;
  const artifactRecomputes = artifactDigestOf(m.value) === manifest.artifact_digest;

  const results = audited.results;
  if (!results) d.push({ file: 'results.json', message: 'is missing' });
  else if (!results.value) d.push(results.error!);
  else {
    const bad = resultsProblems(results.value);
    if (bad.length > 0) d.push({ file: 'results.json', message: `lacks required fields: ${bad.join('; ')}` });
  }

  for (const entry of audited.entries) {
    if (!(OUTPUT_FILES as readonly string[]).includes(entry.name))
      d.push({ file: entry.name, message: 'is not a file of the output format (docs/outputs.md)' });
    else if (!entry.file) d.push({ file: entry.name, message: 'is not a regular file' });
  }

  const present = new Set(audited.entries.filter((e) => e.file).map((e) => e.name));
  const actual = new Map<string, { bytes: number; sha256: string }>();
  for (const file of [...DATA_FILES, MANIFEST_FILE]) {
    if (!present.has(file)) continue;
    const bytes = readRegularFile(join(audited.dir, file));
    actual.set(file, { bytes: bytes.length, sha256: sha256Hex(bytes) });
  }

  let sumsText: string | null = null;
  let sums = new Map<string, { sha256: string; line: number }>();
  if (!present.has(SUMS_FILE)) {
    d.push({ file: SUMS_FILE, message: 'is missing' });
  } else {
    sumsText = readRegularFile(join(audited.dir, SUMS_FILE)).toString('latin1');
    const parsed = parseSums(sumsText);
    d.push(...parsed.problems);
    sums = parsed.entries;
    const expected = new Set<string>([...DATA_FILES, MANIFEST_FILE]);
    for (const file of [...expected].sort()) if (!sums.has(file)) d.push({ file: SUMS_FILE, message: `does not list ${file}` });
    for (const [file, entry] of sums)
      if (!expected.has(file))
        d.push({ file: SUMS_FILE, row: entry.line, message: `lists ${file}, which is not an output the manifest covers` });
  }

  // Each data file: the file, its manifest entry and its SHA256SUMS line; two agreeing accounts
  // name the third.
  for (const listed of manifest.outputs) {
    const now = actual.get(listed.file);
    const line = sums.get(listed.file);
    if (!now) {
      d.push({ file: listed.file, message: 'is listed by the manifest but missing' });
    } else if (now.sha256 === listed.sha256 && now.bytes === listed.bytes) {
      if (line && line.sha256 !== now.sha256) {
        d.push({
          file: SUMS_FILE,
          row: line.line,
          message: `lists ${line.sha256} for ${listed.file}; the file and the manifest have ${now.sha256}`,
        });
      }
    } else if (line && line.sha256 === now.sha256) {
      d.push({
        file: MANIFEST_FILE,
        message: `records ${listed.sha256} (${listed.bytes} bytes) for ${listed.file}; the file and SHA256SUMS have ${now.sha256} (${now.bytes} bytes)`,
      });
    } else {
      d.push({
        file: listed.file,
        message: `has SHA-256 ${now.sha256} (${now.bytes} bytes); the manifest lists ${listed.sha256} (${listed.bytes} bytes)`,
      });
    }
  }

  // manifest.json against its SHA256SUMS line, the artifact digest deciding which one changed.
  const manifestNow = actual.get(MANIFEST_FILE)!;
  const manifestLine = sums.get(MANIFEST_FILE);
  if (manifestLine && manifestLine.sha256 !== manifestNow.sha256) {
    d.push(
      artifactRecomputes
        ? {
            file: SUMS_FILE,
            row: manifestLine.line,
            message: `lists ${manifestLine.sha256} for manifest.json, which hashes to ${manifestNow.sha256} and whose artifact_digest recomputes`,
          }
        : {
            file: MANIFEST_FILE,
            message: `hashes to ${manifestNow.sha256}, not SHA256SUMS' ${manifestLine.sha256}, and its artifact_digest does not recompute`,
          },
    );
  }

  // Whatever else differs (order, spacing): SHA256SUMS must be exactly what sha256sum would write.
  if (sumsText !== null && !d.some((x) => x.file === SUMS_FILE)) {
    const expected = sha256sums([...manifest.outputs, { file: MANIFEST_FILE, ...manifestNow }]);
    if (expected !== sumsText) {
      const at = firstDifferingLine(Buffer.from(sumsText, 'latin1'), Buffer.from(expected, 'latin1'));
      d.push({ file: SUMS_FILE, row: at.line, message: "differs from the sha256sum form of the manifest's outputs and manifest.json" });
    }
  }
  return done(artifactRecomputes);
}

export function digestsRail(audited: AuditedDir): Rail {
  const d: Difference[] = [];
  const value = audited.manifest?.value;
  const manifest = audited.fields;
  if (!value || !manifest) {
    return railOf('digests', '', [{ file: MANIFEST_FILE, message: 'is missing or unreadable: no digest can be recomputed' }]);
  }
  const runId = runIdOf(value.inputs as unknown as EmitInputs);
  if (runId !== manifest.run_id)
    d.push({ file: MANIFEST_FILE, message: `run_id ${manifest.run_id} does not recompute from inputs (${runId})` });
  const artifact = artifactDigestOf(value);
  if (artifact !== manifest.artifact_digest)
    d.push({ file: MANIFEST_FILE, message: `artifact_digest ${manifest.artifact_digest} does not recompute (${artifact})` });
  const results = audited.results?.value;
  if (!results || resultsProblems(results).length > 0) {
    d.push({ file: 'results.json', message: 'is missing or unreadable: decision_digest cannot be recomputed' });
  } else {
    const rows = (name: string) => results[name] as JsonValue[];
    const decision = decisionDigest({
      assertion_classes: rows('assertion_classes'),
      scores: rows('scores'),
      hypotheses: rows('hypotheses'),
    });
    if (decision !== manifest.decision_digest) {
      d.push({
        file: 'results.json',
        message: `its decision rows digest to ${decision}, not the manifest's decision_digest ${manifest.decision_digest}`,
      });
    }
  }
  return railOf('digests', `run_id, artifact_digest and decision_digest (from the rows of results.json) recompute`, d);
}
