import { TemplateError } from './errors';
import { lexTemplate, type Position, type Token } from './lexer';
import { checkSourceSize, TEMPLATE_LIMITS, TemplateLimitError } from './limits';

/** An operand of a command: a value, a function name, or a parenthesized pipeline. */
export type Operand =
  | { kind: 'field'; names: string[]; pos: Position } // .A.B
  | { kind: 'dot'; pos: Position } // .
  | { kind: 'root'; names: string[]; pos: Position } // $ or $.A.B
  | { kind: 'string'; value: string; pos: Position }
  | { kind: 'number'; value: number; isInteger: boolean; text: string; pos: Position }
  | { kind: 'bool'; value: boolean; pos: Position }
  | { kind: 'nil'; pos: Position }
  | { kind: 'function'; name: string; pos: Position }
  | { kind: 'pipeline'; pipeline: Pipeline; pos: Position };

/** `op1 op2 ...`; the first operand is what runs, the rest are its arguments. */
export interface Command {
  operands: Operand[];
  pos: Position;
}

/** `cmd1 | cmd2 | ...`: each command's result becomes the last argument of the next. */
export interface Pipeline {
  commands: Command[];
  pos: Position;
  /** Source text of the pipeline, for error messages (`executing at <...>`). */
  text: string;
}

/** `{{if}}`, `{{with}}` or `{{range}}` with its body and else branch. */
export interface ControlNode {
  kind: 'if' | 'with' | 'range';
  pipeline: Pipeline;
  body: TemplateNode[];
  elseBody: TemplateNode[];
  pos: Position;
}

export type TemplateNode = { kind: 'text'; text: string } | { kind: 'action'; pipeline: Pipeline } | ControlNode;

type Terminator = 'end' | 'else' | 'eof';

const UNSUPPORTED_ACTIONS = new Set(['define', 'template', 'block', 'break', 'continue']);

/**
 * Parses a template into a node tree. Like Go, calling a function that is not in `functionNames` is a parse
 * error (`function "x" not defined`).
 */
export function parseTemplate(source: string, functionNames: ReadonlySet<string>): TemplateNode[] {
  checkSourceSize(source);
  return new Parser(lexTemplate(source), functionNames).parseRoot();
}

class Parser {
  private index = 0;
  /** Open control blocks and parentheses, bounded so a deep template cannot exhaust the stack. */
  private depth = 0;

  constructor(
    private readonly tokens: Token[],
    private readonly functionNames: ReadonlySet<string>,
  ) {}

  parseRoot(): TemplateNode[] {
    const { nodes, terminator, at } = this.parseList();
    if (terminator !== 'eof') this.fail(at, `unexpected {{${terminator}}}`);
    return nodes;
  }

  private peek(offset = 0): Token {
    return this.tokens[Math.min(this.index + offset, this.tokens.length - 1)];
  }

  private next(): Token {
    const token = this.peek();
    if (this.index < this.tokens.length - 1) this.index++;
    return token;
  }

  private fail(pos: Position, message: string): never {
    throw new TemplateError(`template: ${pos.line}:${pos.col}: ${message}`);
  }

  private expectClose(context: string): void {
    const token = this.next();
    if (token.kind !== 'close') this.fail(token.pos, `unexpected ${describe(token)} in ${context}`);
  }

  /** Nodes up to `{{end}}`, `{{else ...` (the `else` consumed, the rest left for the caller) or the end. */
  private parseList(): { nodes: TemplateNode[]; terminator: Terminator; at: Position } {
    const nodes: TemplateNode[] = [];
    for (;;) {
      const token = this.next();
      if (token.kind === 'eof') return { nodes, terminator: 'eof', at: token.pos };
      if (token.kind === 'text') {
        nodes.push({ kind: 'text', text: token.value });
        continue;
      }
      // token.kind === 'open'
      const first = this.peek();
      if (first.kind === 'identifier') {
        const word = first.value;
        if (word === 'end') {
          this.next();
          this.expectClose('end');
          return { nodes, terminator: 'end', at: first.pos };
        }
        if (word === 'else') {
          this.next();
          return { nodes, terminator: 'else', at: first.pos };
        }
        if (word === 'if' || word === 'with' || word === 'range') {
          this.next();
          nodes.push(this.parseControl(word, first.pos));
          continue;
        }
        if (UNSUPPORTED_ACTIONS.has(word)) this.fail(first.pos, `{{${word}}} is not supported`);
      }
      const pipeline = this.parsePipeline('command', 'close');
      this.next(); // the close delimiter
      nodes.push({ kind: 'action', pipeline });
    }
  }

  /** After `{{if`/`{{with`/`{{range`: pipeline, body, optional else (or `else if`), end. */
  private parseControl(kind: 'if' | 'with' | 'range', pos: Position): TemplateNode {
    this.enter(pos);
    const node = this.parseControlBody(kind, pos);
    this.depth -= 1;
    return node;
  }

  private enter(pos: Position): void {
    this.depth += 1;
    if (this.depth > TEMPLATE_LIMITS.maxNesting) {
      throw new TemplateLimitError(`template: ${pos.line}:${pos.col}: nested deeper than ${TEMPLATE_LIMITS.maxNesting} levels`);
    }
  }

  private parseControlBody(kind: 'if' | 'with' | 'range', pos: Position): TemplateNode {
    const pipeline = this.parsePipeline(kind, 'close');
    this.next();
    const body = this.parseList();
    if (body.terminator === 'eof') this.fail(body.at, `unexpected EOF in {{${kind}}}`);
    let elseBody: TemplateNode[] = [];
    if (body.terminator === 'else') {
      const after = this.peek();
      if (kind !== 'range' && after.kind === 'identifier' && after.value === kind) {
        // `{{else if x}}` is an `if` nested in the else branch that shares this `{{end}}`.
        this.next();
        elseBody = [this.parseControl(kind, after.pos)];
      } else {
        this.expectClose('else');
        const rest = this.parseList();
        if (rest.terminator === 'eof') this.fail(rest.at, `unexpected EOF in {{${kind}}}`);
        if (rest.terminator === 'else') this.fail(rest.at, `expected end; found {{else}}`);
        elseBody = rest.nodes;
      }
    }
    return { kind, pipeline, body: body.nodes, elseBody, pos };
  }

  /** Commands separated by `|` up to the given closing token (left unconsumed). */
  private parsePipeline(context: string, closing: 'close' | 'rparen'): Pipeline {
    const start = this.peek();
    const commands: Command[] = [];
    let current: Operand[] = [];
    let currentPos = start.pos;
    const startIndex = this.index;
    for (;;) {
      const token = this.peek();
      if (token.kind === closing || token.kind === 'pipe') {
        if (current.length === 0) {
          if (commands.length === 0 && token.kind === closing) this.fail(token.pos, `missing value for ${context}`);
          this.fail(token.pos, 'missing command in pipeline');
        }
        commands.push({ operands: current, pos: currentPos });
        current = [];
        if (token.kind === closing) break;
        this.next();
        currentPos = this.peek().pos;
        continue;
      }
      if (token.kind === 'eof' || token.kind === 'close' || token.kind === 'rparen' || token.kind === 'text') {
        this.fail(token.pos, `unexpected ${describe(token)} in ${context}`);
      }
      if (token.kind === 'declare') this.fail(token.pos, 'variable declarations are not supported');
      this.next();
      current.push(this.operandFrom(token, context));
    }
    const pipeline: Pipeline = { commands, pos: start.pos, text: tokensText(this.tokens.slice(startIndex, this.index)) };
    this.checkStages(pipeline);
    return pipeline;
  }

  private operandFrom(token: Token, context: string): Operand {
    const pos = token.pos;
    switch (token.kind) {
      case 'field':
        return { kind: 'field', names: token.value.split('.'), pos };
      case 'dot':
        return { kind: 'dot', pos };
      case 'variable':
        return { kind: 'root', names: token.value ? token.value.split('.') : [], pos };
      case 'string':
        return { kind: 'string', value: token.value, pos };
      case 'number':
        return parseNumber(token, (message) => this.fail(pos, message));
      case 'lparen': {
        this.enter(pos);
        const pipeline = this.parsePipeline('parenthesized pipeline', 'rparen');
        this.depth -= 1;
        this.next();
        return { kind: 'pipeline', pipeline, pos };
      }
      case 'identifier': {
        const name = token.value;
        if (name === 'true' || name === 'false') return { kind: 'bool', value: name === 'true', pos };
        if (name === 'nil') return { kind: 'nil', pos };
        if (['if', 'else', 'end', 'range', 'with'].includes(name) || UNSUPPORTED_ACTIONS.has(name)) {
          this.fail(pos, `unexpected <${name}> in ${context}`);
        }
        if (!this.functionNames.has(name)) this.fail(pos, `function "${name}" not defined`);
        return { kind: 'function', name, pos };
      }
      default:
        return this.fail(pos, `unexpected ${describe(token)} in ${context}`);
    }
  }

  /** Go refuses constants as later pipeline stages: they cannot take the piped value. */
  private checkStages(pipeline: Pipeline): void {
    pipeline.commands.forEach((command, stage) => {
      const head = command.operands[0];
      if (stage > 0 && ['string', 'number', 'bool', 'nil', 'dot'].includes(head.kind)) {
        this.fail(command.pos, `non executable command in pipeline stage ${stage + 1}`);
      }
    });
  }
}

function parseNumber(token: Token, fail: (message: string) => never): Operand {
  const text = token.value.replace(/_/g, '');
  const isInteger = /^[+-]?(0[xX][0-9a-fA-F]+|[0-9]+)$/.test(text);
  const value = isInteger ? parseInteger(text) : Number(text);
  if (!Number.isFinite(value)) fail(`bad number syntax: "${token.value}"`);
  return { kind: 'number', value, isInteger, text: token.value, pos: token.pos };
}

function parseInteger(text: string): number {
  const negative = text.startsWith('-');
  const digits = text.replace(/^[+-]/, '');
  const magnitude = /^0[xX]/.test(digits) ? parseInt(digits.slice(2), 16) : parseInt(digits, 10);
  return negative ? -magnitude : magnitude;
}

function describe(token: Token): string {
  switch (token.kind) {
    case 'eof':
      return 'EOF';
    case 'close':
      return '"}}"';
    case 'rparen':
      return '")"';
    case 'text':
      return 'text';
    default:
      return `<${token.kind === 'string' ? JSON.stringify(token.value) : token.value}>`;
  }
}

/** Re-creates the source of a run of action tokens, for error messages. */
function tokensText(tokens: Token[]): string {
  return tokens
    .map((t) => {
      switch (t.kind) {
        case 'field':
          return `.${t.value}`;
        case 'variable':
          return t.value ? `$.${t.value}` : '$';
        case 'string':
          return JSON.stringify(t.value);
        default:
          return t.value;
      }
    })
    .join(' ')
    .replace(/\( /g, '(')
    .replace(/ \)/g, ')');
}
