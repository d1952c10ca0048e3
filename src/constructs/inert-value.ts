/**
 * Whether a value comes out of the framework's token resolution (cdktf's `resolve`, run over every value of the
 * synthesized configuration before it is written) exactly as it went in, so that secretform may add it to the
 * configuration after resolution (stack.ts) and the file holds the same bytes.
 *
 * Resolution replaces encoded tokens (`${TfToken[...]}`, `#{TfToken[...]}`, `&{TfToken[...]}` in strings and
 * keys, numbers in the token range), calls objects that have a `resolve` method, drops `undefined` elements of
 * arrays (the JSON writer would write `null`) and refuses functions, the two map-token texts and trees deeper
 * than 200 levels. Anything
 * that could meet one of those is not inert: plain objects (no prototype but Object's), arrays without holes,
 * strings and keys without `${`, `#{`, `&{` or an exponent like `e+289` (a number token written in a string),
 * finite numbers that are not tokens, booleans and null, at most `MAX_DEPTH` levels deep. The test is
 * conservative: a value that is not inert simply goes through the framework as before.
 */

/** Well under the framework's 200 levels, counted from the configuration's root (which adds about 6). */
const MAX_DEPTH = 150;

/** `${`, `#{` or `&{` (token markers and terraform's own `${...}`), or an exponent of a number token in text. */
const NOT_INERT_TEXT = /[$#&]\{|e\+\d/i;

/** What the framework's resolution treats specially, asked of the framework the app loaded (cdktf-adapter.ts). */
export interface TokenRules {
  isNumberToken(value: number): boolean;
  /** Texts resolution refuses as they are (cdktf's `Token.STRING_MAP_TOKEN_VALUE`, `Token.ANY_MAP_TOKEN_VALUE`). */
  readonly refusedTexts: ReadonlySet<string>;
}

export function isInert(value: unknown, rules: TokenRules): boolean {
  return inert(value, rules, 0);
}

/**
 * A text resolution leaves as it is. `NOT_INERT_TEXT` needs a `{` or a `+`: most texts (names, paths, digests)
 * hold neither and skip the regular expression (every value of every construct's spec is tested).
 */
function inertText(text: string, rules: TokenRules): boolean {
  if ((text.includes('{') || text.includes('+')) && NOT_INERT_TEXT.test(text)) return false;
  return !rules.refusedTexts.has(text);
}

function inert(value: unknown, rules: TokenRules, depth: number): boolean {
  if (value === null || typeof value === 'boolean') return true;
  if (typeof value === 'string') return inertText(value, rules);
  if (typeof value === 'number') return Number.isFinite(value) && !rules.isNumberToken(value);
  if (typeof value !== 'object' || depth >= MAX_DEPTH) return false;
  if (Array.isArray(value)) {
    // An index loop, not `every`: a hole is undefined here (resolution drops it, the writer would write null).
    for (let index = 0; index < value.length; index++) {
      if (!inert(value[index], rules, depth + 1)) return false;
    }
    return true;
  }
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== null) return false;
  for (const key of Object.keys(value)) {
    if (!inertText(key, rules)) return false;
    const item = (value as Record<string, unknown>)[key];
    // An undefined property is left out by both resolution and the writer.
    if (item !== undefined && !inert(item, rules, depth + 1)) return false;
  }
  return true;
}
