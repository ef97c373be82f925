/**
 * A DocumentClient stand-in for unit tests of the stores' write paths: items in memory, keyed by
 * table and key attribute, with the condition expressions the stores write (attribute_exists,
 * attribute_not_exists, =, <, AND, OR, parentheses), for GetItem, PutItem, DeleteItem and
 * TransactWriteItems and BatchWriteItem (`unprocessedBatches` leaves puts unprocessed). Faults fail chosen requests as the document client fails them:
 * - `before`: refused, nothing applied (a throttled request): DatabaseUnavailable;
 * - `lost`: not applied, but no answer (a timeout): DatabaseUnavailable of unknown outcome;
 * - `after`: applied, then the answer lost (a 5xx after the write): DatabaseUnavailable of unknown outcome;
 * - `retried`: applied, the answer lost, and the SDK's retry of it answered: the retry's own error
 *   (a failed condition, on the first attempt's write), marked as of unknown outcome.
 * Every request is recorded.
 */
import { DatabaseUnavailable } from '../../../functions/common/errors';
import { type Command, type DocumentClient, markOutcomeUnknown } from '../../../functions/db/dynamo';

type Dict = Record<string, unknown>;

export interface FaultRule {
  readonly match: (operation: string, input: Dict) => boolean;
  readonly when: 'before' | 'lost' | 'after' | 'retried';
  /** How many matching requests fail (default 1). */
  times?: number;
}

export interface Sent {
  readonly operation: string;
  readonly input: Dict;
  /** What came of it: applied, refused by DynamoDB (`error`), or failed by a fault. */
  readonly outcome: 'ok' | 'error' | `fault-${FaultRule['when']}`;
}

const conditionFailed = () => Object.assign(new Error('The conditional request failed'), { name: 'ConditionalCheckFailedException' });

export class MemoryDynamo {
  /** table → key value → item. */
  readonly tables = new Map<string, Map<string, Dict>>();
  readonly sent: Sent[] = [];
  private readonly faults: FaultRule[] = [];

  /** `keys`: the key attribute of each table. */
  constructor(private readonly keys: Readonly<Record<string, string>>) {}

  /** This fake as the stores' client. */
  get client(): DocumentClient {
    return {
      send: (command: Command<unknown, unknown>) => this.send(command.operation, command.input as Dict),
    } as unknown as DocumentClient;
  }

  /** BatchWriteItem requests still to answer with their last put unprocessed (as DynamoDB does when throttling). */
  unprocessedBatches = 0;

  fail(rule: FaultRule): void {
    this.faults.push({ ...rule, times: rule.times ?? 1 });
  }

  item(table: string, key: string): Dict | undefined {
    return this.tables.get(table)?.get(key);
  }

  put(table: string, item: Dict): void {
    this.table(table).set(String(item[this.keyOf(table)]), structuredClone(item));
  }

  private table(name: string): Map<string, Dict> {
    let t = this.tables.get(name);
    if (t === undefined) this.tables.set(name, (t = new Map()));
    return t;
  }

  private keyOf(table: string): string {
    const key = this.keys[table];
    if (key === undefined) throw new Error(`MemoryDynamo: no key attribute for table ${table}`);
    return key;
  }

  private async send(operation: string, input: Dict): Promise<Dict> {
    await Promise.resolve();
    const index = this.faults.findIndex((f) => f.match(operation, input));
    const fault = index >= 0 ? this.faults[index] : undefined;
    if (fault) {
      fault.times = (fault.times ?? 1) - 1;
      if (fault.times <= 0) this.faults.splice(index, 1);
    }
    if (fault?.when === 'before' || fault?.when === 'lost') {
      this.sent.push({ operation, input, outcome: `fault-${fault.when}` });
      throw new DatabaseUnavailable(`injected: ${fault.when}`, fault.when === 'lost');
    }
    let output: Dict;
    try {
      output = this.apply(operation, input);
    } catch (err) {
      this.sent.push({ operation, input, outcome: fault ? `fault-${fault.when}` : 'error' });
      throw fault ? markOutcomeUnknown(err as Error) : err;
    }
    this.sent.push({ operation, input, outcome: fault ? `fault-${fault.when}` : 'ok' });
    if (fault?.when === 'after') throw new DatabaseUnavailable('injected: answer lost', true);
    if (fault?.when === 'retried') {
      try {
        return this.apply(operation, input);
      } catch (err) {
        throw markOutcomeUnknown(err as Error);
      }
    }
    return output;
  }

  private apply(operation: string, input: Dict): Dict {
    switch (operation) {
      case 'GetItem': {
        const item = this.current(input);
        return item === undefined ? {} : { Item: structuredClone(item) };
      }
      case 'PutItem': {
        this.check(input, this.tables.get(String(input.TableName))?.get(String((input.Item as Dict)[this.keyOf(String(input.TableName))])));
        this.put(String(input.TableName), input.Item as Dict);
        return {};
      }
      case 'DeleteItem': {
        this.check(input, this.current(input));
        this.table(String(input.TableName)).delete(this.keyValue(input));
        return {};
      }
      case 'TransactWriteItems': {
        const items = input.TransactItems as Record<string, Dict>[];
        const reasons = items.map((item) => {
          const [kind, part] = Object.entries(item)[0] as [string, Dict];
          const current =
            kind === 'Put'
              ? this.item(String(part.TableName), String((part.Item as Dict)[this.keyOf(String(part.TableName))]))
              : this.current(part);
          try {
            this.check(part, current);
            return { Code: 'None' };
          } catch {
            return { Code: 'ConditionalCheckFailed' };
          }
        });
        if (reasons.some((r) => r.Code !== 'None'))
          throw Object.assign(new Error('Transaction cancelled'), { name: 'TransactionCanceledException', CancellationReasons: reasons });
        for (const item of items) {
          const [kind, part] = Object.entries(item)[0] as [string, Dict];
          if (kind === 'Put') this.put(String(part.TableName), part.Item as Dict);
          if (kind === 'Delete') this.table(String(part.TableName)).delete(this.keyValue(part));
        }
        return {};
      }
      case 'BatchWriteItem': {
        const unprocessed: Record<string, Dict[]> = {};
        for (const [table, requests] of Object.entries(input.RequestItems as Record<string, Dict[]>)) {
          const held = this.unprocessedBatches > 0 && requests.length > 0 ? 1 : 0;
          if (held > 0) {
            this.unprocessedBatches--;
            unprocessed[table] = requests.slice(-held);
          }
          for (const request of requests.slice(0, requests.length - held)) {
            const put = request.PutRequest as { Item: Dict } | undefined;
            if (put) this.put(table, put.Item);
            const del = request.DeleteRequest as { Key: Dict } | undefined;
            if (del) this.table(table).delete(String(del.Key[this.keyOf(table)]));
          }
        }
        return Object.keys(unprocessed).length > 0 ? { UnprocessedItems: unprocessed } : {};
      }
      default:
        throw new Error(`MemoryDynamo: ${operation} is not supported`);
    }
  }

  private keyValue(input: Dict): string {
    return String((input.Key as Dict)[this.keyOf(String(input.TableName))]);
  }

  private current(input: Dict): Dict | undefined {
    return this.tables.get(String(input.TableName))?.get(this.keyValue(input));
  }

  private check(input: Dict, item: Dict | undefined): void {
    const expression = input.ConditionExpression as string | undefined;
    if (expression === undefined) return;
    const names = (input.ExpressionAttributeNames ?? {}) as Record<string, string>;
    const values = (input.ExpressionAttributeValues ?? {}) as Dict;
    if (!evaluate(expression, names, values, item)) throw conditionFailed();
  }
}

/** A condition expression of the forms the stores write, on `item` (undefined: no item). */
export function evaluate(expression: string, names: Record<string, string>, values: Dict, item: Dict | undefined): boolean {
  const tokens = expression.match(/\(|\)|[A-Za-z_]+\(|[#:][A-Za-z0-9_]+|<=|>=|<>|=|<|>|AND|OR|NOT/g) ?? [];
  let i = 0;
  const attr = (token: string) => item?.[names[token] ?? token];
  const operand = (token: string) => (token.startsWith(':') ? values[token] : attr(token));
  const primary = (): boolean => {
    const token = tokens[i++] as string;
    if (token === '(') {
      const value = or();
      i++; // ')'
      return value;
    }
    if (token === 'NOT') return !primary();
    if (token === 'attribute_exists(' || token === 'attribute_not_exists(') {
      const name = tokens[i++] as string;
      i++; // ')'
      const exists = item !== undefined && attr(name) !== undefined;
      return token === 'attribute_exists(' ? exists : !exists;
    }
    const left = operand(token);
    const op = tokens[i++] as string;
    const right = operand(tokens[i++] as string);
    if (left === undefined || right === undefined) return op === '<>' && left !== right;
    switch (op) {
      case '=':
        return left === right;
      case '<>':
        return left !== right;
      case '<':
        return (left as number) < (right as number);
      case '<=':
        return (left as number) <= (right as number);
      case '>':
        return (left as number) > (right as number);
      default:
        return (left as number) >= (right as number);
    }
  };
  const and = (): boolean => {
    let value = primary();
    while (tokens[i] === 'AND') {
      i++;
      const next = primary();
      value = value && next;
    }
    return value;
  };
  const or = (): boolean => {
    let value = and();
    while (tokens[i] === 'OR') {
      i++;
      const next = and();
      value = value || next;
    }
    return value;
  };
  return or();
}
