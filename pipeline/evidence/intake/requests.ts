// Is an intake request its system's (SPEC §12.2)? Its key must be one of the frozen agent_keys
// of the system it names (a key of another system is refused, whoever holds it) and its
// signature must verify over canonical {study_id, system_id, freeze_digest, kind, version,
// supersedes, sha256, bytes} (/1: without version and supersedes);
// it must name the study and the freeze in force. Pure: the request and the registration in.
import type { ReasonCode } from '../../reasons.ts';
import { agentPublicKey, verifyCanonical } from './ed25519.ts';
import { requestPayload, type IntakeRequest } from './records.ts';

/** The registration a request is checked against: each system's agent keys (ed25519:… texts). */
export interface AgentKeyRegistry {
  readonly study_id: string;
  readonly systems: ReadonlyArray<{ system_id: string; agent_keys?: ReadonlyArray<{ public_key: string }> }>;
}

export interface RequestRefusal {
  code: ReasonCode;
  message: string;
}

/** Null when the request is the named system's, for this study and freeze; else why not. */
export function requestRefusal(request: IntakeRequest, registry: AgentKeyRegistry, freezeDigest: string): RequestRefusal | null {
  if (request.study_id !== registry.study_id) {
    return {
      code: 'INTAKE_REQUEST_INVALID',
      message: `the request is for study ${JSON.stringify(request.study_id)}; this study is ${JSON.stringify(registry.study_id)}`,
    };
  }
  if (request.freeze_digest !== freezeDigest) {
    return {
      code: 'INTAKE_FREEZE_MISMATCH',
      message: `the request was signed under freeze ${request.freeze_digest}; the study's freeze_digest is ${freezeDigest}`,
    };
  }
  const system = registry.systems.find((s) => s.system_id === request.system_id);
  const own = system?.agent_keys ?? [];
  if (!own.some((k) => k.public_key === request.public_key)) {
    const holder = registry.systems.find((s) => s.agent_keys?.some((k) => k.public_key === request.public_key));
    const why =
      holder !== undefined
        ? `it is ${JSON.stringify(holder.system_id)}'s key: a system submits only its own files`
        : system === undefined
          ? `${JSON.stringify(request.system_id)} is not a registered system`
          : 'it is not a registered agent key';
    return {
      code: 'INTAKE_SIGNATURE_INVALID',
      message: `the request for ${JSON.stringify(request.system_id)} is signed with ${request.public_key}; ${why}`,
    };
  }
  const key = agentPublicKey(request.public_key);
  if (key === undefined || !verifyCanonical(key, requestPayload(request), request.signature)) {
    return {
      code: 'INTAKE_SIGNATURE_INVALID',
      message: `the signature does not verify with ${request.public_key} over canonical {study_id, system_id, freeze_digest, kind,${request.version === undefined ? '' : ' version, supersedes,'} sha256, bytes}`,
    };
  }
  return null;
}
