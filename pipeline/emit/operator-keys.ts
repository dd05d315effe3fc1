// The operator's keys: from options, or from the environment (never from the study itself).
// Read by emit, and by run's preflight before any work.
import { existsSync } from 'node:fs';
import type { StageContext } from '../command.ts';
import { readText } from '../io/json-files.ts';
import { PreregError } from '../reasons.ts';
import type { OperatorKeyPems } from './sign.ts';

export const OPERATOR_KEY_ENV = 'PREREG_OPERATOR_KEY';
export const CMS_KEY_ENV = 'PREREG_OPERATOR_CMS_KEY';
export const CMS_CERT_ENV = 'PREREG_OPERATOR_CMS_CERT';

function readPem(option: string, value: string | boolean | string[] | undefined, envName: string, env: NodeJS.ProcessEnv): string {
  if (typeof value === 'string') {
    if (!existsSync(value)) throw new PreregError('FILE_NOT_FOUND', `--${option} ${value} does not exist`, { path: value });
    return readText(value);
  }
  const fromEnv = env[envName];
  if (fromEnv) {
    // The PEM itself, or the path of a PEM file.
    if (fromEnv.includes('-----BEGIN ')) return fromEnv;
    if (!existsSync(fromEnv))
      throw new PreregError('FILE_NOT_FOUND', `$${envName} names ${fromEnv}, which does not exist`, { path: fromEnv });
    return readText(fromEnv);
  }
  throw new PreregError('OPERATOR_KEY_MISSING', `no --${option} FILE and no $${envName}`);
}

/** --operator-key/--cms-key/--cms-cert FILE, else $PREREG_OPERATOR_KEY/_CMS_KEY/_CMS_CERT (PEM text or a path). */
export function resolveOperatorKeys(values: StageContext['values'], env: NodeJS.ProcessEnv): OperatorKeyPems {
  return {
    operatorKey: readPem('operator-key', values['operator-key'], OPERATOR_KEY_ENV, env),
    cmsKey: readPem('cms-key', values['cms-key'], CMS_KEY_ENV, env),
    cmsCert: readPem('cms-cert', values['cms-cert'], CMS_CERT_ENV, env),
  };
}
