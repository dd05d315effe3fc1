// The TypeScript types of a proof, a transparency-log entry, a trust policy, a freeze record, a
// study, an intake request, a seal, a deviation entry, a verify shard's manifest, an item, an answer-key line, a submission
// line, a commitment line and a timeline's entries have the shape of their JSON Schemas: checked by
// the compiler (npm run typecheck), not at run time. A mismatch makes the assignment below a type error naming the path and the keys.
import { describe, expect, it } from 'vitest';
import type { ArkForgeProof } from '../../pipeline/evidence/arkforge/versions/proof.ts';
import type { TlogEntry } from '../../pipeline/evidence/tlog/index.ts';
import type { SchemaShapeProblems } from '../../pipeline/formats/schema-shape.ts';
import {
  answerKeySchema,
  commitmentSchema,
  deviationSchema,
  freezeSchema,
  intakeRequestSchema,
  itemsSchema,
  proofSchema,
  sealSchema,
  studySchema,
  submissionSchema,
  timelineSchema,
  tlogEntrySchema,
  trustPolicySchema,
  verifyShardSchema,
} from '../../pipeline/formats/schemas/index.ts';
import type { SubmissionLine } from '../../pipeline/ingest/submission.ts';
import type { CommitmentDocument } from '../../pipeline/evidence/aer1/index.ts';
import type { Timeline } from '../../pipeline/dev/aer1-timeline.ts';
import type { CorpusItem } from '../../pipeline/freeze/answer-key-file.ts';
import type { AnswerKeyItem } from '../../pipeline/study/answer-key.ts';
import type { IntakeRequest, SealRecord } from '../../pipeline/evidence/intake/records.ts';
import type { DeviationEntry } from '../../pipeline/evidence/deviations/records.ts';
import type { TrustPolicy } from '../../pipeline/formats/trust-policy.ts';
import type { FreezeRecord } from '../../pipeline/study/freeze-record.ts';
import type { StudyConfig } from '../../pipeline/study/study.ts';
import type { ShardManifest } from '../../pipeline/verify/shard-manifest.ts';

const proof: SchemaShapeProblems<ArkForgeProof, typeof proofSchema> = 'none';
const entry: SchemaShapeProblems<TlogEntry, typeof tlogEntrySchema> = 'none';
const policy: SchemaShapeProblems<TrustPolicy, typeof trustPolicySchema> = 'none';
const record: SchemaShapeProblems<FreezeRecord, typeof freezeSchema> = 'none';
const study: SchemaShapeProblems<StudyConfig, typeof studySchema> = 'none';
const request: SchemaShapeProblems<IntakeRequest, typeof intakeRequestSchema> = 'none';
const sealed: SchemaShapeProblems<SealRecord, typeof sealSchema> = 'none';
const deviation: SchemaShapeProblems<DeviationEntry, typeof deviationSchema> = 'none';
const item: SchemaShapeProblems<CorpusItem, typeof itemsSchema> = 'none';
const answer: SchemaShapeProblems<AnswerKeyItem, typeof answerKeySchema> = 'none';
const shard: SchemaShapeProblems<ShardManifest, typeof verifyShardSchema> = 'none';
// The members later stages check held as objects, so that the schema's disclosure.disclosed has a key to meet.
const submission: SchemaShapeProblems<SubmissionLine<Record<string, unknown>>, typeof submissionSchema> = 'none';
const commitment: SchemaShapeProblems<CommitmentDocument, typeof commitmentSchema> = 'none';
// The schema's top level is a oneOf (a bare array or prereg's envelope): the entries are what a type describes.
const timeline: SchemaShapeProblems<Timeline, typeof timelineSchema.$defs.entries, typeof timelineSchema.$defs> = 'none';

// The check itself, on small schemas: it must see a missing, an extra and a non-required key.
const schema = {
  type: 'object',
  required: ['a', 'inner'],
  // A $ref with words of its own beside a definition with its own (two description literals): still checked.
  properties: { a: { type: 'string' }, b: { type: 'integer' }, inner: { $ref: '#/$defs/inner', description: 'the inner object' } },
  $defs: { inner: { type: 'object', description: 'an object', required: ['x'], properties: { x: { type: 'string' } } } },
} as const;
const same: SchemaShapeProblems<{ a: string; b?: number; inner: { x: string } }, typeof schema> = 'none';
// @ts-expect-error b is not in the type
const missing: SchemaShapeProblems<{ a: string; inner: { x: string } }, typeof schema> = 'none';
// @ts-expect-error c is not in the schema
const extra: SchemaShapeProblems<{ a: string; b?: number; c: 1; inner: { x: string } }, typeof schema> = 'none';
// @ts-expect-error a is required by the schema
const optional: SchemaShapeProblems<{ a?: string; b?: number; inner: { x: string } }, typeof schema> = 'none';
// @ts-expect-error inner.y is not in the schema (through the $ref)
const nested: SchemaShapeProblems<{ a: string; b?: number; inner: { x: string; y: string } }, typeof schema> = 'none';

describe('types from schemas', () => {
  it('are checked at compile time (npm run typecheck); nothing to run', () => {
    expect(
      [
        proof,
        entry,
        policy,
        record,
        study,
        request,
        sealed,
        deviation,
        shard,
        item,
        answer,
        submission,
        commitment,
        timeline,
        same,
        missing,
        extra,
        optional,
        nested,
      ].every((p) => p === 'none'),
    ).toBe(true);
  });
});
