// A system's agent key as study.json registers it (SPEC §12.2; docs/intake.md): the public key
// (`ed25519:<base64url>`) and its proof of possession, the key's Ed25519 signature over the
// canonical {study_id, system_id}. Pure.
import type { KeyObject } from 'node:crypto';
import { agentKeyText, signCanonical } from '../evidence/intake/ed25519.ts';
import { possessionPayload } from '../evidence/intake/records.ts';

/** One entry of a system's `agent_keys`. */
export interface AgentKeyRegistration {
  public_key: string;
  possession: string;
}

/** The `agent_keys` entry for `privateKey` (Ed25519) as `systemId`'s key in study `studyId`. */
export function agentKeyRegistration(privateKey: KeyObject, studyId: string, systemId: string): AgentKeyRegistration {
  return { public_key: agentKeyText(privateKey), possession: signCanonical(privateKey, possessionPayload(studyId, systemId)) };
}
