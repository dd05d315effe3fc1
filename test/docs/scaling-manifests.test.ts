// The manifests docs/scaling.md shows, as their schedulers read them: the Kubernetes Indexed Job
// (parsed as YAML, the fields that make it a sharded verify checked) and the GitHub Actions
// workflow (read by GitHub's own parser): N shards, indices 0..N-1, each running
// `prereg verify --shard I/N` with the index the scheduler gives, and the merge after them all.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { convertWorkflowTemplate, NoOperationTraceWriter, parseWorkflow } from '@actions/workflow-parser';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../support/cli.ts';

const DIR = join(PROJECT_ROOT, 'docs/examples/scaling');

interface K8sJob {
  kind: string;
  metadata: { name: string };
  spec: {
    completionMode?: string;
    completions: number;
    parallelism?: number;
    template: {
      spec: { restartPolicy: string; containers: Array<{ command: string[]; volumeMounts: Array<{ name: string; readOnly?: boolean }> }> };
    };
  };
}

describe('docs/examples/scaling', () => {
  it('the Kubernetes Indexed Job: N completions, indexed, each pod verify --shard $JOB_COMPLETION_INDEX/N; then the merge job', () => {
    const docs = parseAllDocuments(readFileSync(join(DIR, 'verify-shards.k8s.yaml'), 'utf8'));
    for (const d of docs) expect(d.errors).toEqual([]);
    const [shards, merge] = docs.map((d) => d.toJS() as K8sJob);
    expect(docs).toHaveLength(2);
    expect([shards!.kind, shards!.spec.completionMode]).toEqual(['Job', 'Indexed']);
    const n = shards!.spec.completions;
    expect(n).toBeGreaterThan(1);
    expect(shards!.spec.parallelism).toBe(n);
    expect(shards!.spec.template.spec.restartPolicy).toBe('Never');
    const verify = shards!.spec.template.spec.containers[0]!;
    const script = verify.command.join(' ');
    expect(script).toContain(`prereg verify --root /study --shard "$JOB_COMPLETION_INDEX/${n}" --out "/shards/$JOB_COMPLETION_INDEX"`);
    // The study is read, never written, by a shard.
    expect(verify.volumeMounts.find((m) => m.name === 'study')?.readOnly).toBe(true);
    expect([merge!.kind, merge!.spec.completionMode, merge!.spec.completions]).toEqual(['Job', undefined, 1]);
    expect(merge!.spec.template.spec.containers[0]!.command.join(' ')).toMatch(/prereg run --root \/study --verified-shards \/shards /);
  });

  it('the GitHub Actions workflow: a matrix of indices 0..N-1 running verify --shard, and the merge job needing it', async () => {
    const parsed = parseWorkflow(
      { name: 'verify-shards.yml', content: readFileSync(join(DIR, 'verify-shards.workflow.yml'), 'utf8') },
      new NoOperationTraceWriter(),
    );
    expect(parsed.context.errors.getErrors().map((e) => e.message)).toEqual([]);
    const template = await convertWorkflowTemplate(parsed.context, parsed.value!);
    expect(template.errors ?? []).toEqual([]);
    const jobs = new Map(template.jobs.map((j) => [j.id.value, j]));
    expect([...jobs.keys()]).toEqual(['verify', 'merge']);
    const verify = jobs.get('verify')!;
    const merge = jobs.get('merge')!;
    if (verify.type !== 'job' || merge.type !== 'job') throw new Error('a reusable-workflow job');
    // The matrix as written (its values are a template until the run expands it).
    const strategy = (
      parseAllDocuments(readFileSync(join(DIR, 'verify-shards.workflow.yml'), 'utf8'))[0]!.toJS() as {
        jobs: { verify: { strategy: { matrix: { index: number[] } } } };
      }
    ).jobs.verify.strategy;
    const indices = strategy.matrix.index;
    const n = indices.length;
    expect(indices).toEqual(Array.from({ length: n }, (_, i) => i));
    const runs = (job: typeof verify) => job.steps.flatMap((s) => ('run' in s ? [s.run.toString()] : []));
    // GitHub's parser gives the step as the expression it evaluates: {0} is the matrix's index.
    const shardRun = new RegExp(`format\\('prereg verify --root \\. --shard "\\{0\\}/${n}" --out [^']*', matrix\\.index`);
    expect(
      runs(verify).filter((r) => shardRun.test(r)),
      runs(verify).join('\n'),
    ).toHaveLength(1);
    expect(merge.needs?.map((x) => x.value)).toEqual(['verify']);
    expect(runs(merge).some((r) => /prereg run --root \. --verified-shards "\$RUNNER_TEMP\/shards"/.test(r))).toBe(true);
  });
});
