/**
 * The deterministic condition of a flow's edge, on the variables gathered so far: a small grammar
 * parsed here (no eval), so a definition is checked when it is saved and a call only evaluates.
 *
 *   expression := or
 *   or         := and ('or' and)*
 *   and        := not ('and' not)*
 *   not        := 'not' not | comparison
 *   comparison := value (('==' | '!=' | '<' | '<=' | '>' | '>=') value)?
 *   value      := number | 'text' | "text" | true | false | null | variable | '(' expression ')'
 *
 * A variable is a name of the flow's variables (`age`, `consent`); one not gathered yet is null.
 * `<`, `<=`, `>`, `>=` hold only between two numbers or two strings; a lone value holds when it
 * is `true`, a number other than 0, or a non-empty string.
 */

export type FlowValue = string | number | boolean | null;

export type FlowExpression =
  | { kind: 'literal'; value: FlowValue }
  | { kind: 'variable'; name: string }
  | { kind: 'not'; operand: FlowExpression }
  | { kind: 'and' | 'or'; left: FlowExpression; right: FlowExpression }
  | { kind: 'compare'; op: ComparisonOperator; left: FlowExpression; right: FlowExpression };

type ComparisonOperator = '==' | '!=' | '<' | '<=' | '>' | '>=';

/** The longest expression accepted, and how deep parentheses and `not` may nest. */
export const MAX_EXPRESSION_CHARS = 500;
const MAX_DEPTH = 16;

export class ExpressionError extends Error {}

type Token =
  | { type: 'number'; value: number }
  | { type: 'string'; value: string }
  | { type: 'word'; value: string }
  | { type: 'symbol'; value: string };

const TOKEN = /\s*(?:(-?\d+(?:\.\d+)?)|'([^'\\]*)'|"([^"\\]*)"|([A-Za-z_][A-Za-z0-9_]*)|(==|!=|<=|>=|<|>|\(|\)))/y;

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < source.length) {
    if (/^\s*$/.test(source.slice(TOKEN.lastIndex))) break;
    const at = TOKEN.lastIndex;
    const match = TOKEN.exec(source);
    if (!match) throw new ExpressionError(`unexpected character at ${at + 1}: ${source.slice(at).trim().slice(0, 10)}`);
    if (match[1] !== undefined) tokens.push({ type: 'number', value: Number(match[1]) });
    else if (match[2] !== undefined || match[3] !== undefined)
      tokens.push({ type: 'string', value: match[2] ?? match[3]! });
    else if (match[4] !== undefined) tokens.push({ type: 'word', value: match[4] });
    else tokens.push({ type: 'symbol', value: match[5]! });
  }
  return tokens;
}

const COMPARISONS = new Set(['==', '!=', '<', '<=', '>', '>=']);
const KEYWORDS = new Set(['and', 'or', 'not', 'true', 'false', 'null']);

/** Parses an edge's `expression`; an ExpressionError says what is wrong. */
export function parseExpression(source: string): FlowExpression {
  if (source.length > MAX_EXPRESSION_CHARS) throw new ExpressionError(`at most ${MAX_EXPRESSION_CHARS} characters`);
  const tokens = tokenize(source);
  if (!tokens.length) throw new ExpressionError('empty expression');
  let position = 0;
  const peek = () => tokens[position];
  const isWord = (word: string) => peek()?.type === 'word' && peek()!.value === word;
  const isSymbol = (symbol: string) => peek()?.type === 'symbol' && peek()!.value === symbol;

  const or = (depth: number): FlowExpression => {
    let left = and(depth);
    while (isWord('or')) {
      position++;
      left = { kind: 'or', left, right: and(depth) };
    }
    return left;
  };
  const and = (depth: number): FlowExpression => {
    let left = not(depth);
    while (isWord('and')) {
      position++;
      left = { kind: 'and', left, right: not(depth) };
    }
    return left;
  };
  const not = (depth: number): FlowExpression => {
    if (depth > MAX_DEPTH) throw new ExpressionError(`nested more than ${MAX_DEPTH} levels`);
    if (isWord('not')) {
      position++;
      return { kind: 'not', operand: not(depth + 1) };
    }
    return comparison(depth);
  };
  const comparison = (depth: number): FlowExpression => {
    const left = value(depth);
    const token = peek();
    if (token?.type === 'symbol' && COMPARISONS.has(token.value)) {
      position++;
      return { kind: 'compare', op: token.value as ComparisonOperator, left, right: value(depth) };
    }
    return left;
  };
  const value = (depth: number): FlowExpression => {
    const token = tokens[position++];
    if (!token) throw new ExpressionError('the expression ends too early');
    if (token.type === 'number' || token.type === 'string') return { kind: 'literal', value: token.value };
    if (token.type === 'symbol') {
      if (token.value !== '(') throw new ExpressionError(`unexpected ${token.value}`);
      if (depth >= MAX_DEPTH) throw new ExpressionError(`nested more than ${MAX_DEPTH} levels`);
      const inner = or(depth + 1);
      if (!isSymbol(')')) throw new ExpressionError('a ( is not closed');
      position++;
      return inner;
    }
    if (token.value === 'true' || token.value === 'false') return { kind: 'literal', value: token.value === 'true' };
    if (token.value === 'null') return { kind: 'literal', value: null };
    if (KEYWORDS.has(token.value)) throw new ExpressionError(`unexpected ${token.value}`);
    return { kind: 'variable', name: token.value };
  };

  const expression = or(0);
  if (position < tokens.length) {
    const token = tokens[position]!;
    throw new ExpressionError(`unexpected ${token.type === 'string' ? `'${token.value}'` : token.value}`);
  }
  return expression;
}

/** The variables an expression reads. */
export function expressionVariables(expression: FlowExpression): string[] {
  switch (expression.kind) {
    case 'literal':
      return [];
    case 'variable':
      return [expression.name];
    case 'not':
      return expressionVariables(expression.operand);
    default:
      return [...expressionVariables(expression.left), ...expressionVariables(expression.right)];
  }
}

function valueOf(expression: FlowExpression, variables: Record<string, unknown>): FlowValue {
  switch (expression.kind) {
    case 'literal':
      return expression.value;
    case 'variable': {
      const value = Object.hasOwn(variables, expression.name) ? variables[expression.name] : null;
      return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? value : null;
    }
    default:
      return holds(expression, variables);
  }
}

const truthy = (value: FlowValue): boolean =>
  value === true || (typeof value === 'number' && value !== 0) || (typeof value === 'string' && value !== '');

/** Whether the expression holds for these variables. */
export function holds(expression: FlowExpression, variables: Record<string, unknown>): boolean {
  switch (expression.kind) {
    case 'not':
      return !holds(expression.operand, variables);
    case 'and':
      return holds(expression.left, variables) && holds(expression.right, variables);
    case 'or':
      return holds(expression.left, variables) || holds(expression.right, variables);
    case 'compare': {
      const left = valueOf(expression.left, variables);
      const right = valueOf(expression.right, variables);
      if (expression.op === '==') return left === right;
      if (expression.op === '!=') return left !== right;
      const ordered =
        (typeof left === 'number' && typeof right === 'number') ||
        (typeof left === 'string' && typeof right === 'string');
      if (!ordered) return false;
      const [a, b] = [left, right] as [number, number];
      return expression.op === '<' ? a < b : expression.op === '<=' ? a <= b : expression.op === '>' ? a > b : a >= b;
    }
    default:
      return truthy(valueOf(expression, variables));
  }
}
