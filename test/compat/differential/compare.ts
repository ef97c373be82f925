/**
 * Comparing two recorded runs step by step: status, the headers that matter, and the body. A
 * difference names the step, the aspect and the JSON path where the two disagree.
 */
import type { Recorded } from './runner';

export interface Difference {
  readonly step: string;
  readonly request: string;
  /** "status", "header:<name>" or "body<path>". */
  readonly aspect: string;
  readonly ironic: unknown;
  readonly ironless: unknown;
}

function diffValues(path: string, a: unknown, b: unknown, out: [string, unknown, unknown][]): void {
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    if (Array.isArray(a) && Array.isArray(b)) {
      if (a.length !== b.length) {
        out.push([`${path}.length`, a.length, b.length]);
        return;
      }
      a.forEach((item, i) => diffValues(`${path}[${i}]`, item, b[i], out));
      return;
    }
    const ka = Object.keys(a as object);
    const kb = Object.keys(b as object);
    for (const key of new Set([...ka, ...kb])) {
      const va = (a as Record<string, unknown>)[key];
      const vb = (b as Record<string, unknown>)[key];
      if (!(key in (a as object))) out.push([`${path}.${key}`, '<absent>', vb]);
      else if (!(key in (b as object))) out.push([`${path}.${key}`, va, '<absent>']);
      else diffValues(`${path}.${key}`, va, vb, out);
    }
    return;
  }
  if (JSON.stringify(a) !== JSON.stringify(b)) out.push([path, a, b]);
}

export function compareRuns(ironic: readonly Recorded[], ironless: readonly Recorded[]): Difference[] {
  const differences: Difference[] = [];
  ironic.forEach((a, i) => {
    const b = ironless[i];
    if (b === undefined || a.step !== b.step) throw new Error(`the runs diverged at step ${a.step}`);
    const add = (aspect: string, x: unknown, y: unknown) =>
      differences.push({ step: a.step, request: a.request, aspect, ironic: x, ironless: y });
    if (a.status !== b.status) add('status', a.status, b.status);
    for (const name of new Set([...Object.keys(a.headers), ...Object.keys(b.headers)])) {
      if (a.headers[name] !== b.headers[name]) add(`header:${name}`, a.headers[name] ?? '<absent>', b.headers[name] ?? '<absent>');
    }
    const bodyDiffs: [string, unknown, unknown][] = [];
    diffValues('body', a.body, b.body, bodyDiffs);
    for (const [path, x, y] of bodyDiffs) add(path, x, y);
  });
  return differences;
}
