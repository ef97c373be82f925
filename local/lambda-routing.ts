/**
 * Lambda's rules for an alias's routing, kept pure: which versions an alias may name and weigh
 * (`validateRouting`), and which version one invocation of it runs (`pickVersion`).
 */

export class LambdaServiceError extends Error {
  constructor(
    override readonly name: string,
    message: string,
    readonly statusCode: number,
  ) {
    super(message);
  }
}

export const LATEST = '$LATEST';

/** Alias names as Lambda accepts them: letters, digits, - and _, not all digits, 1 to 128 long. */
const ALIAS_NAME = /^(?!^[0-9]+$)[a-zA-Z0-9-_]{1,128}$/;

export function invalid(message: string): LambdaServiceError {
  return new LambdaServiceError('InvalidParameterValueException', message, 400);
}

export function validateAliasName(name: string): void {
  if (!ALIAS_NAME.test(name)) throw invalid(`Invalid alias name: ${name}`);
}

/**
 * An alias's version and its AdditionalVersionWeights as Lambda checks them: at most one extra
 * version, a weight in [0, 1), both published versions (weighted routing refuses $LATEST), the
 * extra one not the alias's own. `exists` says whether a version exists (404 otherwise).
 */
export function validateRouting(
  functionArn: string,
  version: string,
  weights: Readonly<Record<string, number>>,
  exists: (version: string) => boolean,
): void {
  const extra = Object.entries(weights);
  if (extra.length > 1) throw invalid(`Number of additional version weights cannot be greater than 1: ${extra.length}`);
  for (const v of [version, ...extra.map(([v]) => v)]) {
    if (!exists(v)) throw new LambdaServiceError('ResourceNotFoundException', `Function not found: ${functionArn}:${v}`, 404);
  }
  const [entry] = extra;
  if (entry === undefined) return;
  const [other, weight] = entry;
  if (typeof weight !== 'number' || !Number.isFinite(weight) || weight < 0 || weight >= 1)
    throw invalid(`Invalid weight ${String(weight)} for version ${other}: weights must be in [0.0, 1.0)`);
  if (version === LATEST || other === LATEST) throw invalid('$LATEST is not supported for an alias pointing to more than 1 version');
  if (other === version) throw invalid(`Version ${other} cannot be both the alias's version and an additional version`);
}

/** The version one invocation of an alias runs: `roll` in [0, 1) falls on a weight or on the alias's version. */
export function pickVersion(version: string, weights: Readonly<Record<string, number>>, roll: number): string {
  let rest = roll;
  for (const [other, weight] of Object.entries(weights)) {
    if (rest < weight) return other;
    rest -= weight;
  }
  return version;
}

/** Lambda's answer for a function, version or alias that does not exist. */
export function notFound(arn: string): LambdaServiceError {
  return new LambdaServiceError('ResourceNotFoundException', `Function not found: ${arn}`, 404);
}

/** Split "name", "name:qualifier" or an ARN into name and qualifier. */
export function parseRef(ref: string, qualifier?: string): { name: string; qualifier: string | undefined } {
  let rest = ref;
  if (rest.startsWith('arn:')) rest = rest.split(':function:')[1] ?? rest;
  const [name, q] = rest.split(':') as [string, string | undefined];
  return { name, qualifier: qualifier ?? q };
}
