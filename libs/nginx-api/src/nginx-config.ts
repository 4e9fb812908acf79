/**
 * Syntax of an Nginx's `spec.config`: the server configuration the controller mounts as
 * /etc/nginx/conf.d/default.conf, which the official image's nginx.conf includes inside `http { }`.
 *
 * Text is read as nginx's configuration reader reads it, so what is accepted nginx reads to the end, and what
 * is refused is refused at the line and with the message of `nginx -t` (test/nginx-config.test.ts holds it to
 * Debian's nginx):
 * - parameters are separated by spaces, tabs, CR and LF; only LF ends a line;
 * - `#` starts a comment to the end of the line, only where a parameter could start (`a#b` is one parameter);
 * - a parameter may be quoted with `"` or `'`, across lines; a quoted one must be followed by whitespace,
 *   `;`, `{` or `)`; a backslash makes the next character ordinary, in quotes or not;
 * - a directive is a name and parameters ended by `;`, or by `{` that opens its block; `}` closes a block
 *   and must stand where a directive could start; the `{` of `${name}` does not open a block;
 * - a parameter (from its first byte, or the one after its opening quote, through its closing quote) or a
 *   comment must stay under 4096 bytes of UTF-8 when text follows: nginx reads through a buffer that size.
 * Directive names, parameters and contexts are not checked (nor files an `include` names): that is for
 * `nginx -t` where nginx runs. Messages are nginx's, except that where nginx quotes bytes (an unexpected
 * character, the start of a long parameter) they quote whole characters, with `\n`, `\r` and `\t` escaped.
 * Pure (no Node APIs): the web UI uses it too.
 */

/** Largest spec.config, in bytes of UTF-8. */
export const MAX_CONFIG_BYTES = 256 * 1024;

/** One syntax problem, 1-based line. */
export interface ConfigProblem {
  line: number;
  message: string;
}

/** nginx reads a configuration file through a buffer this long; one parameter or comment must not fill it. */
const READ_BUFFER_BYTES = 4096;

/**
 * Syntax problems of an nginx configuration fragment (http-context contents, e.g. `server { ... }`), first one
 * first; [] when valid. Like nginx, it stops at the first problem, so there is at most one. A text of more than
 * MAX_CONFIG_BYTES is refused before its syntax is read, at the line holding the first byte past the limit.
 */
export function nginxConfigProblems(text: string): ConfigProblem[] {
  const problem = sizeProblem(text) ?? syntaxProblem(text);
  return problem ? [problem] : [];
}

/** Renders a problem as the API's one-line message, e.g. `line 3: unexpected "}"`. */
export function describeConfigProblem(problem: ConfigProblem): string {
  return `line ${problem.line}: ${problem.message}`;
}

function sizeProblem(text: string): ConfigProblem | undefined {
  let bytes = 0;
  let line = 1;
  for (let i = 0; i < text.length; i += unitsAt(text, i)) {
    bytes += utf8Bytes(text, i);
    if (bytes > MAX_CONFIG_BYTES)
      return { line, message: `configuration is larger than ${MAX_CONFIG_BYTES} bytes` };
    if (text[i] === '\n') line++;
  }
  return undefined;
}

const isSpace = (ch: string): boolean => ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';

function syntaxProblem(text: string): ConfigProblem | undefined {
  let line = 1;
  let depth = 0;
  let index = 0;
  let byte = 0;

  // The state of the directive being read, fresh after each `;`, `{` and `}`.
  let parameters = 0;
  let betweenParameters = true;
  let needSpace = false; // just after a closing quote
  let comment = false;
  let escaped = false;
  let variable = false; // just after `$` or `${`, where `{` belongs to the parameter
  let quote: string | undefined;
  // Where the current parameter, comment or whitespace started: what must not fill nginx's read buffer.
  let startByte = 0;
  let startIndex = 0;
  let startLine = 1;

  const nextDirective = (): void => {
    parameters = 0;
    betweenParameters = true;
    needSpace = comment = escaped = variable = false;
    quote = undefined;
    startByte = byte;
    startIndex = index;
    startLine = line;
  };
  const endDirective = (ch: string): void => {
    if (ch === '{') depth++;
    nextDirective();
  };
  const unexpected = (ch: string): ConfigProblem => ({ line, message: `unexpected "${ch}"` });

  for (;;) {
    if (index >= text.length) {
      if (parameters > 0 || !betweenParameters)
        return { line, message: 'unexpected end of file, expecting ";" or "}"' };
      return depth > 0 ? { line, message: 'unexpected end of file, expecting "}"' } : undefined;
    }
    if (byte - startByte >= READ_BUFFER_BYTES) return tooLong(text, startIndex, startLine, quote);

    const at = index;
    const width = utf8Bytes(text, at);
    const ch = text.slice(at, at + unitsAt(text, at));
    index += ch.length;
    byte += width;

    if (ch === '\n') {
      line++;
      comment = false;
    }
    if (comment) continue;
    if (escaped) {
      escaped = false;
      continue;
    }

    if (needSpace) {
      if (isSpace(ch)) {
        betweenParameters = true;
        needSpace = false;
        continue;
      }
      if (ch === ';' || ch === '{') {
        endDirective(ch);
        continue;
      }
      if (ch !== ')') return unexpected(ch);
      // `if ($a = "b")`: the parenthesis after a quote starts the next parameter.
      betweenParameters = true;
      needSpace = false;
    }

    if (betweenParameters) {
      startByte = byte - width;
      startIndex = at;
      startLine = line;
      if (isSpace(ch)) continue;
      if (ch === ';' || ch === '{') {
        if (parameters === 0) return unexpected(ch);
        endDirective(ch);
      } else if (ch === '}') {
        if (parameters > 0 || depth === 0) return unexpected(ch);
        depth--;
        nextDirective();
      } else if (ch === '#') {
        comment = true;
      } else {
        betweenParameters = false;
        if (ch === '\\') escaped = true;
        else if (ch === '$') variable = true;
        else if (ch === '"' || ch === "'") {
          quote = ch;
          startByte = byte;
          startIndex = index;
        }
      }
      continue;
    }

    if (ch === '{' && variable) continue;
    variable = false;
    if (ch === '\\') escaped = true;
    else if (ch === '$') variable = true;
    else if (quote !== undefined) {
      if (ch === quote) {
        quote = undefined;
        needSpace = true;
        parameters++;
      }
    } else if (isSpace(ch) || ch === ';' || ch === '{') {
      betweenParameters = true;
      parameters++;
      if (!isSpace(ch)) endDirective(ch);
    }
  }
}

/** nginx's message for a parameter that filled its read buffer: the quote it still waits for, or how it starts. */
function tooLong(text: string, start: number, line: number, quote: string | undefined): ConfigProblem {
  if (quote !== undefined)
    return { line, message: `too long parameter, probably missing terminating "${quote}" character` };
  let shown = '';
  for (let i = start, bytes = 0; bytes + utf8Bytes(text, i) <= 10; i += unitsAt(text, i)) {
    bytes += utf8Bytes(text, i);
    shown += text.slice(i, i + unitsAt(text, i));
  }
  // An escaped line break can sit in those first bytes; the message stays on one line.
  shown = shown.replace(/\r/g, '\\r').replace(/\n/g, '\\n').replace(/\t/g, '\\t');
  return { line, message: `too long parameter "${shown}..." started` };
}

/** UTF-16 units of the character at `index`: 2 for a surrogate pair. */
function unitsAt(text: string, index: number): number {
  const code = text.charCodeAt(index);
  const next = text.charCodeAt(index + 1);
  return code >= 0xd800 && code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff ? 2 : 1;
}

/** UTF-8 bytes of the character at `index` (a lone surrogate is written as U+FFFD, 3 bytes, as TextEncoder does). */
function utf8Bytes(text: string, index: number): number {
  const code = text.charCodeAt(index);
  if (code < 0x80) return 1;
  if (code < 0x800) return 2;
  return unitsAt(text, index) === 2 ? 4 : 3;
}
