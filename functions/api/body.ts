/** Reading request bodies. Malformed JSON is a 400 (Ironic 21.4 answers 500 here; see README). */
import { InvalidParameterValue } from '#common/errors';
import type { ApiRequest } from './http';

export function parseBody(req: ApiRequest): unknown {
  if (req.body === undefined || req.body.trim() === '') return undefined;
  try {
    return JSON.parse(req.body);
  } catch (err) {
    throw new InvalidParameterValue(`Invalid JSON in request body: ${(err as Error).message}`);
  }
}
