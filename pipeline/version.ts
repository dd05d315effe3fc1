// The tool's version, recorded in freeze.json and every manifest.
import { readFileSync } from 'node:fs';

export const TOOL_VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string })
  .version;
