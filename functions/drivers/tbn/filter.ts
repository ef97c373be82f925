/**
 * Trait based networking's filter expressions (Ironic's `trait_based_networking/grammar/parser.py`
 * and `base.py`): `port.vendor == 'purple' && (network.name =~ 'stor' || port.is_portgroup)`,
 * parsed once when the rules are loaded and evaluated against (port-like, network) pairs.
 *
 * Written by hand: the grammar is six rules, smaller than any parser library's glue.
 *
 * NOTE: three choices where Ironic's behaviour is an internal error or left open:
 * - `&&` binds tighter than `||` (Ironic's grammar leaves unparenthesised mixes ambiguous; its
 *   documentation asks for parentheses, which work the same here);
 * - a variable the object does not have (a port without `vendor`, a VIF without `name`) makes
 *   its comparison false, where Ironic raises TBNAttributeRetrievalException (HTTP 500);
 * - `network.tags` with `<`, `<=`, `>` or `>=` is refused when the rules load, where Ironic
 *   raises TBNComparatorCollectionTypeMismatch at attach time.
 */

/** The values a filter reads from a port or portgroup. */
export interface PortLikeFacts {
  readonly kind: 'port' | 'portgroup';
  readonly address: string | null;
  readonly category: string | null;
  readonly physical_network: string | null;
  readonly vendor: string | null;
}

/** The values a filter reads from the VIF being attached (from the attach request). */
export interface NetworkFacts {
  readonly name: string | null;
  readonly tags: readonly string[];
}

/**
 * Stand-ins that satisfy every comparison on their side: Ironic's universal port and network,
 * used when only one side of the pair matters (grouping ports ignores the network).
 */
export const ANY_NETWORK = Symbol('any network');

export const VARIABLES = ['network.name', 'network.tags', 'port.address', 'port.category', 'port.physical_network', 'port.vendor'] as const;
export type Variable = (typeof VARIABLES)[number];
const FUNCTIONS = ['port.is_port', 'port.is_portgroup'] as const;
const COMPARATORS = ['==', '!=', '>=', '>', '<=', '<', '=~'] as const;
type Comparator = (typeof COMPARATORS)[number];

export type Expression =
  | { readonly type: 'compare'; readonly variable: Variable; readonly comparator: Comparator; readonly literal: string }
  | { readonly type: 'function'; readonly name: (typeof FUNCTIONS)[number] }
  | { readonly type: 'and' | 'or'; readonly left: Expression; readonly right: Expression };

export class FilterSyntaxError extends Error {
  override readonly name = 'FilterSyntaxError';
}

type Token = { kind: 'name'; text: string } | { kind: 'literal'; text: string } | { kind: 'op'; text: string };

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  const pattern = /([a-z]+\.[a-z_]+)|'([A-Za-z0-9_.-]*)'|(&&|\|\||==|!=|>=|<=|=~|[<>()])/y;
  let at = 0;
  for (;;) {
    while (at < source.length && /\s/.test(source[at] as string)) at++;
    if (at >= source.length) break;
    pattern.lastIndex = at;
    const m = pattern.exec(source);
    if (m === null) throw new FilterSyntaxError(`unexpected text at character ${at + 1}: "${source.slice(at).trim()}"`);
    if (m[1] !== undefined) tokens.push({ kind: 'name', text: m[1] });
    else if (m[2] !== undefined) tokens.push({ kind: 'literal', text: m[2] });
    else tokens.push({ kind: 'op', text: m[3] as string });
    at = pattern.lastIndex;
  }
  return tokens;
}

/** Parse a filter expression; FilterSyntaxError says what is wrong. */
export function parseFilter(source: string): Expression {
  const tokens = tokenize(source);
  let pos = 0;
  const peek = (): Token | undefined => tokens[pos];
  const isOp = (text: string): boolean => peek()?.kind === 'op' && peek()?.text === text;

  function primary(): Expression {
    const token = peek();
    if (token === undefined) throw new FilterSyntaxError('the expression ends where a comparison was expected');
    pos++;
    if (token.kind === 'op' && token.text === '(') {
      const inner = disjunction();
      if (!isOp(')')) throw new FilterSyntaxError('a "(" is not closed');
      pos++;
      return inner;
    }
    if (token.kind !== 'name') throw new FilterSyntaxError(`expected a variable, got "${token.text}"`);
    if ((FUNCTIONS as readonly string[]).includes(token.text)) {
      return { type: 'function', name: token.text as (typeof FUNCTIONS)[number] };
    }
    if (!(VARIABLES as readonly string[]).includes(token.text)) {
      throw new FilterSyntaxError(`unknown variable "${token.text}" (known: ${[...VARIABLES, ...FUNCTIONS].join(', ')})`);
    }
    const comparator = peek();
    if (comparator?.kind !== 'op' || !(COMPARATORS as readonly string[]).includes(comparator.text)) {
      throw new FilterSyntaxError(`expected a comparator after "${token.text}"`);
    }
    pos++;
    const literal = peek();
    if (literal?.kind !== 'literal') throw new FilterSyntaxError(`expected a quoted string after "${token.text} ${comparator.text}"`);
    pos++;
    const variable = token.text as Variable;
    const op = comparator.text as Comparator;
    if (variable === 'network.tags' && !['==', '!=', '=~'].includes(op)) {
      throw new FilterSyntaxError(`network.tags is a list: only ==, != and =~ apply to it, not ${op}`);
    }
    return { type: 'compare', variable, comparator: op, literal: literal.text };
  }

  function conjunction(): Expression {
    let left = primary();
    while (isOp('&&')) {
      pos++;
      left = { type: 'and', left, right: primary() };
    }
    return left;
  }

  function disjunction(): Expression {
    let left = conjunction();
    while (isOp('||')) {
      pos++;
      left = { type: 'or', left, right: conjunction() };
    }
    return left;
  }

  const expression = disjunction();
  const rest = peek();
  if (rest !== undefined) throw new FilterSyntaxError(`unexpected "${rest.text}"`);
  return expression;
}

function compare(value: string, comparator: Comparator, literal: string): boolean {
  switch (comparator) {
    case '==':
      return value === literal;
    case '!=':
      return value !== literal;
    case '>=':
      return value >= literal;
    case '>':
      return value > literal;
    case '<=':
      return value <= literal;
    case '<':
      return value < literal;
    case '=~':
      return value.startsWith(literal);
  }
}

function variableValue(variable: Variable, port: PortLikeFacts, network: NetworkFacts): string | readonly string[] | null {
  switch (variable) {
    case 'network.name':
      return network.name;
    case 'network.tags':
      return network.tags;
    case 'port.address':
      return port.address;
    case 'port.category':
      return port.category;
    case 'port.physical_network':
      return port.physical_network;
    case 'port.vendor':
      return port.vendor;
  }
}

/** Whether the (port-like, network) pair passes `expression`; ANY_NETWORK passes every network test. */
export function matches(expression: Expression, port: PortLikeFacts, network: NetworkFacts | typeof ANY_NETWORK): boolean {
  switch (expression.type) {
    case 'and':
      return matches(expression.left, port, network) && matches(expression.right, port, network);
    case 'or':
      return matches(expression.left, port, network) || matches(expression.right, port, network);
    case 'function':
      return expression.name === 'port.is_port' ? port.kind === 'port' : port.kind === 'portgroup';
    case 'compare': {
      if (expression.variable.startsWith('network.') && network === ANY_NETWORK) return true;
      const value = variableValue(expression.variable, port, network === ANY_NETWORK ? { name: null, tags: [] } : network);
      if (value === null) return false;
      if (typeof value === 'string') return compare(value, expression.comparator, expression.literal);
      // A list (network.tags): membership, or any member starting with the literal.
      if (expression.comparator === '==') return value.includes(expression.literal);
      if (expression.comparator === '!=') return !value.includes(expression.literal);
      return value.some((tag) => tag.startsWith(expression.literal));
    }
  }
}
