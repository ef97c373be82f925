/**
 * Items between the stores' native values and DynamoDB's AttributeValue maps, for the SDK's
 * low-level commands: only the fields of each operation that hold items, keys or expression
 * values are walked. Marshalling keeps the options the stores have always used: undefined values
 * removed, empty strings kept, numbers as JavaScript numbers. The legacy parameters (`Expected`,
 * `KeyConditions`, `QueryFilter`, `ScanFilter`, `AttributeUpdates`) are not marshalled.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';

type Dict = Record<string, unknown>;
type Wire = Record<string, AttributeValue>;

const MARSHALL = { removeUndefinedValues: true, convertEmptyValues: false } as const;
const toWire = (value: Dict): Wire => marshall(value, MARSHALL) as Wire;
const fromWire = (value: Wire): Dict => unmarshall(value);

/** The SDK input for `input`: the item-valued fields marshalled. */
export function marshallInput(operation: string, input: Dict): Dict {
  if (operation === 'BatchGetItem') {
    const requests = input.RequestItems as Record<string, Dict & { Keys: Dict[] }>;
    return {
      ...input,
      RequestItems: mapValues(requests, (request) => ({ ...request, Keys: request.Keys.map(toWire) })),
    };
  }
  if (operation === 'BatchWriteItem') {
    const requests = input.RequestItems as Record<string, Dict[]>;
    return { ...input, RequestItems: mapValues(requests, (list) => list.map(marshallWriteRequest)) };
  }
  if (operation === 'TransactWriteItems') {
    // The SDK fills ClientRequestToken (the transaction's idempotency token) when it is missing.
    const items = (input.TransactItems as Record<string, Dict>[]).map((item) => mapValues(item, (part) => marshallItemFields(part)));
    return { ...input, TransactItems: items };
  }
  return marshallItemFields(input);
}

function marshallItemFields(part: Dict): Dict {
  const out: Dict = { ...part };
  for (const field of ['Key', 'Item', 'ExpressionAttributeValues', 'ExclusiveStartKey']) {
    if (part[field] !== undefined) out[field] = toWire(part[field] as Dict);
  }
  return out;
}

function marshallWriteRequest(request: Dict): Dict {
  const put = request.PutRequest as { Item: Dict } | undefined;
  const del = request.DeleteRequest as { Key: Dict } | undefined;
  return {
    ...(put ? { PutRequest: { Item: toWire(put.Item) } } : {}),
    ...(del ? { DeleteRequest: { Key: toWire(del.Key) } } : {}),
  };
}

/** The output for the SDK's output: its item-valued fields unmarshalled. */
export function unmarshallOutput(body: Dict): Dict {
  const out: Dict = { ...body };
  for (const field of ['Item', 'Attributes', 'LastEvaluatedKey']) {
    if (body[field] !== undefined) out[field] = fromWire(body[field] as Wire);
  }
  if (Array.isArray(body.Items)) out.Items = (body.Items as Wire[]).map(fromWire);
  if (body.Responses !== undefined) out.Responses = mapValues(body.Responses as Record<string, Wire[]>, (items) => items.map(fromWire));
  if (body.UnprocessedKeys !== undefined) {
    const pending = body.UnprocessedKeys as Record<string, Dict & { Keys: Wire[] }>;
    out.UnprocessedKeys = mapValues(pending, (request) => ({ ...request, Keys: request.Keys.map(fromWire) }));
  }
  if (body.UnprocessedItems !== undefined) {
    const pending = body.UnprocessedItems as Record<string, Dict[]>;
    out.UnprocessedItems = mapValues(pending, (list) =>
      list.map((request) => {
        const put = request.PutRequest as { Item: Wire } | undefined;
        const del = request.DeleteRequest as { Key: Wire } | undefined;
        return {
          ...(put ? { PutRequest: { Item: fromWire(put.Item) } } : {}),
          ...(del ? { DeleteRequest: { Key: fromWire(del.Key) } } : {}),
        };
      }),
    );
  }
  return out;
}

/** The items an error carries (a cancelled transaction's reasons, a failed condition's item), unmarshalled in place. */
export function unmarshallError(err: unknown): void {
  const e = err as { CancellationReasons?: { Item?: unknown }[]; Item?: unknown } | undefined;
  if (typeof e !== 'object' || e === null) return;
  if (Array.isArray(e.CancellationReasons)) {
    for (const reason of e.CancellationReasons) if (reason.Item !== undefined) reason.Item = fromWire(reason.Item as Wire);
  }
  if (e.Item !== undefined) e.Item = fromWire(e.Item as Wire);
}

function mapValues<A, B>(record: Record<string, A>, fn: (value: A) => B): Record<string, B> {
  const out: Record<string, B> = {};
  for (const [key, value] of Object.entries(record)) out[key] = fn(value);
  return out;
}
