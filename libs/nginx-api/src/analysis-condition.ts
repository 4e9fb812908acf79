/**
 * An analysis template's successCondition / failureCondition: a small boolean language over `result`, the
 * query's one number. Parsed by hand (never `eval` or `Function`), so a condition can do nothing but compare.
 *
 *   condition  := or                                  (and must be a condition, not a number)
 *   or         := and ( "||" and )*                    (joins conditions)
 *   and        := comparison ( "&&" comparison )*      (joins conditions)
 *   comparison := unary [ ("<"|"<="|">"|">="|"=="|"!=") unary ]   (compares numbers)
 *   unary      := "!" unary (a condition) | "-" unary (a number) | primary
 *   primary    := "result" | literal | "isNaN" "(" or ")" | "(" or ")"
 *   literal    := digits [ "." digits ] [ ("e"|"E") ["+"|"-"] digits ]  |  "." digits [ exponent ]
 *
 * Comparisons do not chain (`0 < result < 1` is refused: write `0 < result && result < 1`), a bare number is not a
 * condition, and a boolean is not a number.
 */

/** Longest condition text accepted (the CRD allows 256 characters; this bounds the parser for any caller). */
export const MAX_CONDITION_LENGTH = 1024;
/** Deepest nesting of parentheses and `!` accepted, so the recursive parser's depth stays small. */
export const MAX_CONDITION_DEPTH = 32;

type Comparison = '<' | '<=' | '>' | '>=' | '==' | '!=';

type NumberNode =
  { kind: 'result' } | { kind: 'literal'; value: number } | { kind: 'negate'; operand: NumberNode };

type ConditionNode =
  | { kind: 'compare'; op: Comparison; left: NumberNode; right: NumberNode }
  | { kind: 'isNaN'; operand: NumberNode }
  | { kind: 'not'; operand: ConditionNode }
  | { kind: 'and' | 'or'; left: ConditionNode; right: ConditionNode };

/** A parsed condition: evaluate it with `conditionMet`. */
export interface AnalysisCondition {
  readonly text: string;
  readonly root: ConditionNode;
  /** The condition asks isNaN(…): a NaN result is judged by it rather than failing it outright. */
  readonly testsNaN: boolean;
}

type Token =
  | { type: 'number'; value: number; at: number }
  | { type: 'word'; value: string; at: number }
  | { type: 'op'; value: string; at: number }
  | { type: 'end'; at: number };

class ConditionSyntaxError extends Error {}

const OPERATORS = ['<=', '>=', '==', '!=', '&&', '||', '<', '>', '!', '(', ')', '-'];
const LITERAL = /^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/;
const WORD = /^[A-Za-z_][A-Za-z0-9_]*/;

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  while (at < text.length) {
    const rest = text.slice(at);
    const space = /^\s+/.exec(rest);
    if (space) {
      at += space[0].length;
      continue;
    }
    const literal = LITERAL.exec(rest);
    if (literal) {
      // `1.5.2` or `2x`: a literal runs straight into more of a word or number.
      if (/^[A-Za-z0-9_.]/.test(rest.slice(literal[0].length)))
        throw new ConditionSyntaxError(`malformed number at position ${at + 1}`);
      tokens.push({ type: 'number', value: Number(literal[0]), at });
      at += literal[0].length;
      continue;
    }
    const word = WORD.exec(rest);
    if (word) {
      tokens.push({ type: 'word', value: word[0], at });
      at += word[0].length;
      continue;
    }
    const op = OPERATORS.find((candidate) => rest.startsWith(candidate));
    if (!op) throw new ConditionSyntaxError(`unexpected ${JSON.stringify(rest[0])} at position ${at + 1}`);
    tokens.push({ type: 'op', value: op, at });
    at += op.length;
  }
  tokens.push({ type: 'end', at });
  return tokens;
}

const COMPARISONS = new Set<string>(['<', '<=', '>', '>=', '==', '!=']);

/** A parsed piece and what it is: a number or a condition; `at` is where it starts, for messages. */
type Typed =
  { type: 'number'; node: NumberNode; at: number } | { type: 'condition'; node: ConditionNode; at: number };

/** Precedence, loosest first: `||`, `&&`, one comparison, then the prefixes `!` and `-`. */
class Parser {
  private next = 0;
  private depth = 0;
  testsNaN = false;

  constructor(private readonly tokens: Token[]) {}

  parse(): ConditionNode {
    const root = this.or();
    if (this.peek().type !== 'end')
      this.fail(this.isOp(')') ? 'end of condition (unbalanced ")")' : '"&&", "||" or end of condition');
    return this.condition(root, 'a condition must compare result, e.g. result < 0.01;');
  }

  private peek(): Token {
    return this.tokens[this.next]!;
  }

  private isOp(value: string): boolean {
    const token = this.peek();
    return token.type === 'op' && token.value === value;
  }

  private take(): Token {
    const token = this.peek();
    if (token.type !== 'end') this.next++;
    return token;
  }

  private fail(expected: string): never {
    const token = this.peek();
    const found =
      token.type === 'end'
        ? 'end of condition'
        : `${JSON.stringify(String(token.value))} at position ${token.at + 1}`;
    throw new ConditionSyntaxError(`expected ${expected}, found ${found}`);
  }

  private expectOp(value: string): void {
    if (!this.isOp(value)) this.fail(`"${value}"`);
    this.take();
  }

  private nested<T>(parse: () => T): T {
    if (++this.depth > MAX_CONDITION_DEPTH)
      throw new ConditionSyntaxError(`nested more than ${MAX_CONDITION_DEPTH} levels deep`);
    try {
      return parse();
    } finally {
      this.depth--;
    }
  }

  private condition(piece: Typed, why: string): ConditionNode {
    if (piece.type !== 'condition')
      throw new ConditionSyntaxError(`${why} found a number at position ${piece.at + 1}`);
    return piece.node;
  }

  private number(piece: Typed, why: string): NumberNode {
    if (piece.type !== 'number')
      throw new ConditionSyntaxError(`${why} found a condition at position ${piece.at + 1}`);
    return piece.node;
  }

  private or(): Typed {
    let left = this.and();
    while (this.isOp('||')) {
      this.take();
      const right = this.and();
      const why = '|| joins conditions,';
      left = {
        type: 'condition',
        node: { kind: 'or', left: this.condition(left, why), right: this.condition(right, why) },
        at: left.at,
      };
    }
    return left;
  }

  private and(): Typed {
    let left = this.comparison();
    while (this.isOp('&&')) {
      this.take();
      const right = this.comparison();
      const why = '&& joins conditions,';
      left = {
        type: 'condition',
        node: { kind: 'and', left: this.condition(left, why), right: this.condition(right, why) },
        at: left.at,
      };
    }
    return left;
  }

  private comparison(): Typed {
    const left = this.unary();
    const op = this.peek();
    if (op.type !== 'op' || !COMPARISONS.has(op.value)) return left;
    this.take();
    const right = this.unary();
    const after = this.peek();
    if (after.type === 'op' && COMPARISONS.has(after.value))
      throw new ConditionSyntaxError(
        `comparisons do not chain (position ${after.at + 1}): join them with &&`,
      );
    const why = `${op.value} compares numbers,`;
    return {
      type: 'condition',
      node: {
        kind: 'compare',
        op: op.value as Comparison,
        left: this.number(left, why),
        right: this.number(right, why),
      },
      at: left.at,
    };
  }

  private unary(): Typed {
    const token = this.peek();
    if (this.isOp('!')) {
      this.take();
      const operand = this.nested(() => this.unary());
      return {
        type: 'condition',
        node: { kind: 'not', operand: this.condition(operand, '! negates a condition,') },
        at: token.at,
      };
    }
    if (this.isOp('-')) {
      this.take();
      const operand = this.nested(() => this.unary());
      return {
        type: 'number',
        node: { kind: 'negate', operand: this.number(operand, '- negates a number,') },
        at: token.at,
      };
    }
    return this.primary();
  }

  private primary(): Typed {
    const token = this.peek();
    if (token.type === 'end' || (token.type === 'op' && token.value !== '('))
      return this.fail('result, a number, "(", "!" or isNaN(…)');
    this.take();
    if (token.type === 'number')
      return { type: 'number', node: { kind: 'literal', value: token.value }, at: token.at };
    if (token.type === 'word') {
      if (token.value === 'result') return { type: 'number', node: { kind: 'result' }, at: token.at };
      if (token.value === 'isNaN') {
        this.expectOp('(');
        const operand = this.nested(() => this.or());
        this.expectOp(')');
        this.testsNaN = true;
        return {
          type: 'condition',
          node: { kind: 'isNaN', operand: this.number(operand, 'isNaN(…) takes a number,') },
          at: token.at,
        };
      }
      throw new ConditionSyntaxError(
        `unknown identifier ${JSON.stringify(token.value)} at position ${token.at + 1}: only result and isNaN(…) are known`,
      );
    }
    const inner = this.nested(() => this.or());
    this.expectOp(')');
    return { ...inner, at: token.at };
  }
}

/**
 * Parses `text`; throws an Error whose message says what is wrong and where (use `conditionError` for a
 * message without the throw).
 */
export function parseCondition(text: string): AnalysisCondition {
  if (text.length > MAX_CONDITION_LENGTH) throw new Error(`longer than ${MAX_CONDITION_LENGTH} characters`);
  if (text.trim() === '') throw new Error('empty condition');
  try {
    const parser = new Parser(tokenize(text));
    const root = parser.parse();
    return { text, root, testsNaN: parser.testsNaN };
  } catch (error) {
    if (error instanceof ConditionSyntaxError) throw new Error(error.message);
    throw error;
  }
}

/** Why `text` is not a condition, or undefined when it is one. */
export function conditionError(text: string): string | undefined {
  try {
    parseCondition(text);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

function numberOf(node: NumberNode, result: number): number {
  switch (node.kind) {
    case 'result':
      return result;
    case 'literal':
      return node.value;
    case 'negate':
      return -numberOf(node.operand, result);
  }
}

function holds(node: ConditionNode, result: number): boolean {
  switch (node.kind) {
    case 'compare': {
      const left = numberOf(node.left, result);
      const right = numberOf(node.right, result);
      switch (node.op) {
        case '<':
          return left < right;
        case '<=':
          return left <= right;
        case '>':
          return left > right;
        case '>=':
          return left >= right;
        case '==':
          return left === right;
        case '!=':
          return left !== right;
      }
      break;
    }
    case 'isNaN':
      return Number.isNaN(numberOf(node.operand, result));
    case 'not':
      return !holds(node.operand, result);
    case 'and':
      return holds(node.left, result) && holds(node.right, result);
    case 'or':
      return holds(node.left, result) || holds(node.right, result);
  }
  return false;
}

/**
 * Whether `result` meets `condition`. A NaN result (0/0: a ratio over no requests) meets no condition that does
 * not ask isNaN(…) — not even `result != 0` or `!(result < 1)` — so a query over missing traffic never passes
 * by accident; a condition that asks isNaN judges it as written. ±Infinity compares as numbers do.
 */
export function conditionMet(condition: AnalysisCondition, result: number): boolean {
  if (Number.isNaN(result) && !condition.testsNaN) return false;
  return holds(condition.root, result);
}
