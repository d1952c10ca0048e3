import type { TemplateSyntaxFacts } from './types';

/**
 * A syntax check of the service's Go-template language (LDIF, username and secret name templates), so a
 * template that the server would reject fails at synth. It checks what can go wrong in practice: unclosed
 * actions, unbalanced `if`/`range`/`with` ... `end` and parentheses, unknown functions, fields outside the
 * template's allowed set, unterminated strings and empty pipeline stages. It does not evaluate anything.
 */

/** Functions available in every template of the service (service-api.md, "Template language"). */
const SERVICE_FUNCTIONS = [
  'random', 'truncate', 'truncate_sha256', 'uppercase', 'lowercase', 'replace', 'sha256', 'base64',
  'unix_time', 'unix_time_millis', 'timestamp', 'uuid',
];
/** The template language's built-in functions. */
const BUILTIN_FUNCTIONS = [
  'and', 'or', 'not', 'len', 'index', 'slice', 'print', 'printf', 'println', 'html', 'js', 'urlquery', 'call',
  'eq', 'ne', 'lt', 'le', 'gt', 'ge',
];
const BLOCK_OPENERS = new Set(['if', 'range', 'with', 'block', 'define']);
const KEYWORDS = new Set(['if', 'else', 'end', 'range', 'with', 'block', 'define', 'template', 'break', 'continue', 'nil', 'true', 'false']);

export type TemplateSyntax = TemplateSyntaxFacts;

/**
 * Largest N of `random N`: the server builds the N characters in memory on every credential request, so a
 * huge N is a denial of service rather than a name (`random 100000000` blocked a server for 18 s at 3.3 GB).
 */
export const TEMPLATE_RANDOM_MAX = 1024;

export const LDIF_TEMPLATE: TemplateSyntax = {
  fields: ['Username', 'Password', 'RoleName', 'DisplayName', 'IssueTime', 'IssueTimeSeconds', 'ExpirationTime', 'ExpirationTimeSeconds'],
  extraFunctions: ['utf16le'],
};
export const USERNAME_TEMPLATE: TemplateSyntax = { fields: ['RoleName', 'DisplayName'] };
/**
 * Secret name templates are rendered over a fixed structure: the document names `.MountAccessor` and
 * `.SecretPath`, and `.SecretKey` is the key under secret-key granularity; any other field fails every sync.
 */
export const SECRET_NAME_TEMPLATE: TemplateSyntax = { fields: ['MountAccessor', 'SecretPath', 'SecretKey'] };

/** The names a syntax allows, as sets. */
interface SyntaxNames {
  readonly functions: ReadonlySet<string>;
  readonly fields: ReadonlySet<string> | undefined;
}

// Made once per syntax object: a desired state of 10,000 resources checks thousands of templates of one syntax.
const namesOfSyntax = new WeakMap<TemplateSyntax, SyntaxNames>();

function syntaxNames(syntax: TemplateSyntax): SyntaxNames {
  let names = namesOfSyntax.get(syntax);
  if (!names) {
    names = {
      functions: new Set([...SERVICE_FUNCTIONS, ...BUILTIN_FUNCTIONS, ...(syntax.extraFunctions ?? [])]),
      fields: syntax.fields ? new Set(syntax.fields) : undefined,
    };
    namesOfSyntax.set(syntax, names);
  }
  return names;
}

/** The problems of a template, each a short sentence; empty when it parses. */
export function templateProblems(text: string, syntax: TemplateSyntax): string[] {
  const { functions, fields } = syntaxNames(syntax);
  const problems: string[] = [];
  const blocks: string[] = [];
  let position = 0;
  for (;;) {
    const open = text.indexOf('{{', position);
    if (open < 0) break;
    const close = findActionEnd(text, open + 2);
    if (close < 0) {
      problems.push(`unclosed action starting at character ${open + 1} ("{{" without "}}")`);
      break;
    }
    let body = text.slice(open + 2, close);
    if (body.startsWith('-') && /^-\s/.test(body)) body = body.slice(1);
    if (body.endsWith('-') && /\s-$/.test(body)) body = body.slice(0, -1);
    checkAction(body.trim(), functions, fields, blocks, problems);
    position = close + 2;
  }
  if (blocks.length > 0) problems.push(`{{${blocks[blocks.length - 1]}}} without a matching {{end}}`);
  return problems;
}

/** Index of the `}}` that closes an action opened before `from`, skipping quoted strings; -1 when none. */
function findActionEnd(text: string, from: number): number {
  let quote: string | undefined;
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === '\\' && quote !== '`') i++;
      else if (c === quote) quote = undefined;
      continue;
    }
    if (c === '"' || c === '`' || c === "'") quote = c;
    else if (c === '}' && text[i + 1] === '}') return i;
  }
  return -1;
}

type Token = { kind: 'word' | 'field' | 'var' | 'string' | 'number' | 'pipe' | 'open' | 'close' | 'assign' | 'comma' | 'dot'; text: string };

function checkAction(body: string, functions: ReadonlySet<string>, fields: ReadonlySet<string> | undefined, blocks: string[], problems: string[]): void {
  if (body.startsWith('/*')) {
    if (!body.endsWith('*/')) problems.push(`unclosed comment in {{${body}}}`);
    return;
  }
  const tokens = tokenize(body, problems);
  if (!tokens) return;
  if (tokens.length === 0) {
    problems.push('empty action {{}}');
    return;
  }
  const first = tokens[0];
  let rest = tokens;
  if (first.kind === 'word' && KEYWORDS.has(first.text)) {
    if (first.text === 'end') {
      if (blocks.length === 0) problems.push('{{end}} without an opening {{if}}, {{range}} or {{with}}');
      else blocks.pop();
      return;
    }
    if (first.text === 'else') {
      if (blocks.length === 0) problems.push('{{else}} outside {{if}}, {{range}} or {{with}}');
      rest = tokens.slice(1);
      if (rest.length > 0 && rest[0].kind === 'word' && (rest[0].text === 'if' || rest[0].text === 'with')) rest = rest.slice(1);
      if (rest.length === 0) return;
    } else if (BLOCK_OPENERS.has(first.text)) {
      blocks.push(first.text);
      rest = tokens.slice(1);
      if (first.text === 'define' || first.text === 'block') return;
      if (rest.length === 0) {
        problems.push(`{{${first.text}}} needs a pipeline`);
        return;
      }
    } else if (first.text === 'template' || first.text === 'break' || first.text === 'continue') {
      return;
    }
  }
  checkPipeline(rest, functions, fields, problems, body);
}

function checkPipeline(tokens: Token[], functions: ReadonlySet<string>, fields: ReadonlySet<string> | undefined, problems: string[], body: string): void {
  checkRandomLengths(tokens, problems, body);
  let depth = 0;
  let stageLength = 0;
  for (const token of tokens) {
    switch (token.kind) {
      case 'open':
        depth++;
        stageLength = 0;
        break;
      case 'close':
        if (depth === 0) problems.push(`unbalanced ")" in {{${body}}}`);
        depth = Math.max(0, depth - 1);
        stageLength = 1;
        break;
      case 'pipe':
        if (stageLength === 0) problems.push(`empty pipeline stage in {{${body}}}`);
        stageLength = 0;
        break;
      case 'word':
        if (!functions.has(token.text) && !KEYWORDS.has(token.text)) {
          problems.push(`unknown function "${token.text}" in {{${body}}}; available: ${[...functions].sort().join(', ')}`);
        }
        stageLength++;
        break;
      case 'field': {
        const name = token.text.slice(1).split('.')[0];
        if (fields && !fields.has(name)) {
          problems.push(`unknown field ".${name}" in {{${body}}}; available: ${[...fields].map((f) => '.' + f).join(', ')}`);
        }
        stageLength++;
        break;
      }
      default:
        stageLength++;
    }
  }
  if (depth > 0) problems.push(`unbalanced "(" in {{${body}}}`);
  if (stageLength === 0 && tokens.length > 0) problems.push(`empty pipeline stage in {{${body}}}`);
}

/** `random N` (or `N | random`) with a literal N outside 0..TEMPLATE_RANDOM_MAX. */
function checkRandomLengths(tokens: Token[], problems: string[], body: string): void {
  tokens.forEach((token, index) => {
    if (token.kind !== 'word' || token.text !== 'random') return;
    const argument = tokens[index + 1]?.kind === 'number'
      ? tokens[index + 1]
      : tokens[index - 1]?.kind === 'pipe' && tokens[index - 2]?.kind === 'number' ? tokens[index - 2] : undefined;
    if (!argument) return;
    const n = Number(argument.text);
    if (!Number.isSafeInteger(n) || n < 0 || n > TEMPLATE_RANDOM_MAX) {
      problems.push(`"random N" takes an integer N from 0 to ${TEMPLATE_RANDOM_MAX}, not ${argument.text}, in {{${body}}}`);
    }
  });
}

function tokenize(body: string, problems: string[]): Token[] | undefined {
  const tokens: Token[] = [];
  let i = 0;
  while (i < body.length) {
    const c = body[i];
    if (/\s/.test(c)) { i++; continue; }
    if (c === '|') { tokens.push({ kind: 'pipe', text: c }); i++; continue; }
    if (c === '(') { tokens.push({ kind: 'open', text: c }); i++; continue; }
    if (c === ')') { tokens.push({ kind: 'close', text: c }); i++; continue; }
    if (c === ',') { tokens.push({ kind: 'comma', text: c }); i++; continue; }
    if (c === ':' && body[i + 1] === '=') { tokens.push({ kind: 'assign', text: ':=' }); i += 2; continue; }
    if (c === '=') { tokens.push({ kind: 'assign', text: '=' }); i++; continue; }
    if (c === '"' || c === '`' || c === "'") {
      let j = i + 1;
      while (j < body.length && body[j] !== c) j += body[j] === '\\' && c !== '`' ? 2 : 1;
      if (j >= body.length) {
        problems.push(`unterminated string in {{${body}}}`);
        return undefined;
      }
      tokens.push({ kind: 'string', text: body.slice(i, j + 1) });
      i = j + 1;
      continue;
    }
    const match = /^(\.[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*|\.|\$[A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*|[-+]?\d[\w.+-]*|[A-Za-z_][A-Za-z0-9_]*)/.exec(body.slice(i));
    if (!match) {
      problems.push(`unexpected character ${JSON.stringify(c)} in {{${body}}}`);
      return undefined;
    }
    const text = match[0];
    const kind: Token['kind'] = text === '.' ? 'dot' : text.startsWith('.') ? 'field' : text.startsWith('$') ? 'var' : /^[-+\d]/.test(text) ? 'number' : 'word';
    tokens.push({ kind, text });
    i += text.length;
  }
  return tokens;
}
