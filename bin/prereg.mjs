#!/usr/bin/env node
// Entry point for `npx prereg`: load the TypeScript CLI through tsx's loader (no build step).
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../pipeline/cli.ts');
process.exitCode = await main(process.argv.slice(2));
