#!/usr/bin/env node
// Prints one section of a report.md whole, from its `## TITLE` heading to the next `## ` heading
// (not included), for scripts/example.sh: a table cut at a fixed number of lines would hide rows
// without saying so. A section the report does not have is an error, not an empty print.
//
//   node scripts/print-report-section.mjs REPORT.md TITLE
import { readFileSync } from 'node:fs';

const [file, title] = process.argv.slice(2);
if (file === undefined || title === undefined) {
  process.stderr.write('usage: node scripts/print-report-section.mjs REPORT.md TITLE\n');
  process.exit(2);
}
const lines = readFileSync(file, 'utf8').split('\n');
const start = lines.indexOf(`## ${title}`);
if (start === -1) {
  process.stderr.write(`${file}: no section "## ${title}"\n`);
  process.exit(1);
}
const next = lines.findIndex((line, i) => i > start && line.startsWith('## '));
const section = lines.slice(start, next === -1 ? lines.length : next);
while (section.length > 0 && section[section.length - 1] === '') section.pop();
process.stdout.write(`${section.join('\n')}\n`);
