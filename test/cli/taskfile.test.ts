// go-task cannot be installed on these machines, so Taskfile.yml is checked against the CLI here:
// every stage has a task running `npx prereg <stage>` and an npm script running the same stage.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../pipeline/stages/registry.ts';

const root = new URL('../../', import.meta.url);

function taskfileTasks(): Map<string, string[]> {
  const text = readFileSync(new URL('Taskfile.yml', root), 'utf8');
  const tasks = new Map<string, string[]>();
  let inTasks = false;
  let current: string | null = null;
  for (const line of text.split('\n')) {
    if (/^tasks:\s*$/.test(line)) inTasks = true;
    else if (/^\S/.test(line)) inTasks = false;
    if (!inTasks) continue;
    const task = /^ {2}([a-z0-9-]+):\s*$/.exec(line);
    if (task) {
      current = task[1]!;
      tasks.set(current, []);
      continue;
    }
    const cmd = /^ {6}- (.+)$/.exec(line);
    if (cmd && current) tasks.get(current)!.push(cmd[1]!.trim());
  }
  return tasks;
}

describe('Taskfile.yml, npm scripts and the CLI agree', () => {
  const stages = COMMANDS.filter((c) => c.stage).map((c) => c.name);
  const tasks = taskfileTasks();
  const scripts = (JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { scripts: Record<string, string> }).scripts;

  it('has exactly one task per CLI stage, each running that stage', () => {
    expect([...tasks.keys()].sort()).toEqual([...stages].sort());
    for (const stage of stages) expect(tasks.get(stage)).toEqual([`npx prereg ${stage} {{.CLI_ARGS}}`]);
  });

  it('has an npm script per stage running the same CLI stage', () => {
    for (const stage of stages) expect(scripts[stage]).toBe(`node bin/prereg.mjs ${stage}`);
  });

  it('finds at least the pre-registration stages (the parser is not vacuous)', () => {
    expect(stages).toEqual(expect.arrayContaining(['freeze', 'anchor', 'check-anchors']));
    expect(tasks.size).toBeGreaterThanOrEqual(3);
  });
});
