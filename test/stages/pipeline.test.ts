// The pipeline after the deadline is declared once (pipeline/run/pipeline.ts): its order is the
// chain of predecessors, and what lists the stages (the command list, Taskfile.yml) lists them in it.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PIPELINE, STAGE_NAMES } from '../../pipeline/run/pipeline.ts';
import { COMMANDS } from '../../pipeline/stages/registry.ts';

describe('the pipeline declared once', () => {
  it('declares ingest → verify → classify → score → emit, each after the one before it', () => {
    expect(STAGE_NAMES).toEqual(['ingest', 'verify', 'classify', 'score', 'emit']);
    expect(PIPELINE.map((s) => s.after)).toEqual([null, 'ingest', 'verify', 'classify', 'score']);
  });

  it('gives each stage but the last a cached stage (labels, inputs, work, result) and emit its own run', async () => {
    for (const stage of PIPELINE) {
      const work = await stage.work();
      expect(work.cached, stage.name).toBe(stage.name !== 'emit');
      if (work.cached) {
        expect(Object.keys(work.stage.labels).length, stage.name).toBeGreaterThan(0);
        for (const f of [work.stage.prepare, work.stage.inputs, work.stage.work, work.stage.result]) expect(typeof f).toBe('function');
      }
    }
  });

  it('the command list names the stages together, in the declared order', () => {
    const names = COMMANDS.map((c) => c.name);
    const at = names.indexOf('ingest');
    expect(names.slice(at, at + STAGE_NAMES.length)).toEqual([...STAGE_NAMES]);
  });

  it('Taskfile.yml lists their tasks in the declared order', () => {
    const text = readFileSync(new URL('../../Taskfile.yml', import.meta.url), 'utf8');
    const tasks = [...text.matchAll(/^ {2}([a-z0-9-]+):\s*$/gm)].map((m) => m[1]!);
    expect(tasks.filter((t) => (STAGE_NAMES as readonly string[]).includes(t))).toEqual([...STAGE_NAMES]);
  });
});
