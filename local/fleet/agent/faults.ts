/** Checking agent faults given to the fleet's control API (`PUT /fleet/v1/machines/<id>/agent-faults`). */
import type { AgentFaults } from '../machine';

export const AGENT_FAULTS = ['crash', 'hang', 'failStep', 'badChecksum', 'versionAfterReboot'] as const;

/** The faults, or a message saying what is wrong with them. */
export function parseAgentFaults(value: unknown): AgentFaults | string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'agent faults must be a JSON object';
  const f = value as Record<string, unknown>;
  const unknown = Object.keys(f).filter((k) => !(AGENT_FAULTS as readonly string[]).includes(k));
  if (unknown.length > 0) return `unknown agent fault(s): ${unknown.join(', ')}; known: ${AGENT_FAULTS.join(', ')}`;
  const nonEmpty = (v: unknown) => typeof v === 'string' && v !== '';
  if (f.crash !== undefined && typeof f.crash !== 'boolean' && !nonEmpty(f.crash))
    return 'crash must be true or false, or the name of the command or step to crash at';
  for (const flag of ['hang', 'badChecksum']) {
    if (f[flag] !== undefined && typeof f[flag] !== 'boolean') return `${flag} must be true or false`;
  }
  for (const name of ['failStep', 'versionAfterReboot']) {
    if (f[name] !== undefined && !nonEmpty(f[name])) return `${name} must be a non-empty string`;
  }
  return f as AgentFaults;
}
