// Every command of the CLI, in the order `prereg --help` lists them. Stages (stage: true) also
// have a Taskfile task and an npm script of the same name; test/cli/taskfile.test.ts checks that.
import { classify, score } from './analysis.ts';
import { anchor } from './anchor.ts';
import { audit } from './audit.ts';
import { checkAnchors } from './check-anchors.ts';
import { corpusProof } from './corpus-proof.ts';
import { emit } from './emit.ts';
import { explain } from './explain.ts';
import { freeze } from './freeze.ts';
import { ingest } from './ingest.ts';
import { revealCheck } from './reveal-check.ts';
import { run } from './run.ts';
import type { Command } from '../command.ts';
import { trust } from './trust.ts';
import { validate } from './validate.ts';
import { verify } from './verify.ts';

export const COMMANDS: readonly Command[] = [freeze, anchor, checkAnchors, revealCheck, ingest, verify, classify, score, emit, run, audit, validate, trust, corpusProof, explain];
