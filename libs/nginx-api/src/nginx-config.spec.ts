import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_CONFIG_BYTES, describeConfigProblem, nginxConfigProblems } from './nginx-config.js';

// Agreement with nginx itself (Debian's `nginx -t`) is test/nginx-config.test.ts; this is the checker alone.

const LONG_PARAMETER = 'x'.repeat(4095); // the longest nginx's 4096-byte read buffer holds, and something after it

describe('nginxConfigProblems', () => {
  it.each([
    ['empty', ''],
    ['only whitespace', ' \n\t\r\n'],
    ['only comments', '# a comment\n   # { } " \' ;\n#'],
    ['a server', "server {\n    listen 8080;\n    return 200 'ok';\n}\n"],
    ['an empty block', 'server {}'],
    ['a regular-expression location', 'server {\n    location ~ \\.php$ {\n        return 403;\n    }\n}'],
    ['a quoted brace in a regular expression', 'location ~ "^/a{2}$" { return 204; }'],
    ['a brace glued to the location', 'location /a{ return 204; }'],
    ['nested blocks', 'http { server { location / { location /a { limit_except GET { deny all; } } } } }'],
    ['escaped double quotes', 'return 200 "say \\"hi\\"";'],
    ['escaped single quote', "return 200 'it\\'s';"],
    ['quotes of the other kind inside quotes', `add_header X "it's"; add_header Y '"quoted"';`],
    ['braces and semicolons inside quotes', 'add_header X "a; b { c } d";'],
    ['a quoted string across lines', 'return 200 "one\ntwo\n";'],
    ['an empty quoted parameter', "map $a $b { '' x; }"],
    ['a comment holding braces and quotes', 'server { # } { " \'\n    listen 8080;\n}'],
    ['# inside a parameter', 'return 200 a#b;'],
    ['} inside a parameter that is not last', 'return 200 a}b;'],
    ['quote inside a parameter', 'return 200 a"b\'c;'],
    ['escaped ; and line break outside quotes', 'return 200 a\\;b\\\n c;'],
    ['${variable} before a brace', 'set $a x; return 200 ${a}b;'],
    ['parenthesis right after a quote', 'if ($a = "b") { return 204; }'],
    ['parenthesis and brace right after a quote', 'if ($a = "b"){ return 204; }'],
    ['; right after a quote', 'return 200 "ok";'],
    ['whitespace before ;', 'return 200 ok \n ;'],
    ['CRLF line endings', 'server {\r\n    listen 8080;\r\n}\r\n'],
    ['unicode', '# ✓ 日本語\nreturn 200 "héllo 🚀";'],
    ['a parameter just short of nginx buffer', `return 200 ${LONG_PARAMETER};`],
    // The closing quote counts: the parameter ends after it.
    ['a quoted parameter just short of nginx buffer', `return 200 "${LONG_PARAMETER.slice(1)}";`],
    ['a comment just short of nginx buffer', `#${LONG_PARAMETER.slice(1)}\nreturn 204;`],
    ['a long run of whitespace', `return 200${' '.repeat(10_000)}ok;${'\n'.repeat(10_000)}`],
    ['a long parameter at the very end', `#${LONG_PARAMETER}`],
  ])('accepts %s', (_name, text) => {
    expect(nginxConfigProblems(text)).toEqual([]);
  });

  it.each([
    ['a lone }', '}', 1, 'unexpected "}"'],
    ['one } too many', 'server {\n}\n}\n', 3, 'unexpected "}"'],
    ['a missing }', 'server {\n    listen 8080;\n', 3, 'unexpected end of file, expecting "}"'],
    [
      'a missing } without a final newline',
      'server {\n    listen 8080;',
      2,
      'unexpected end of file, expecting "}"',
    ],
    ['a missing ; at the end', 'listen 8080', 1, 'unexpected end of file, expecting ";" or "}"'],
    ['a missing ; before }', 'server {\n    listen 8080\n}', 3, 'unexpected "}"'],
    ['a lone ;', ';', 1, 'unexpected ";"'],
    ['a doubled ;', 'server { listen 8080;; }', 1, 'unexpected ";"'],
    ['a block without a name', 'server {\n    {\n    }\n}', 2, 'unexpected "{"'],
    [
      'an unterminated double quote',
      'return 200 "ok;\n}\n',
      3,
      'unexpected end of file, expecting ";" or "}"',
    ],
    ['an unterminated single quote', "return 200 'ok;", 1, 'unexpected end of file, expecting ";" or "}"'],
    ['a character right after a quote', 'return 200 "ok"x;', 1, 'unexpected "x"'],
    ['} right after a quote', 'server { return 200 "ok"}', 1, 'unexpected "}"'],
    ['# right after a quote', 'return 200 "ok"# comment', 1, 'unexpected "#"'],
    ['two quoted parameters without a space', 'return 200 "a""b";', 1, 'unexpected """'],
    ['} glued to the last parameter', 'server { return 204}\n}', 2, 'unexpected "}"'],
    [
      'an unquoted brace in a regular expression',
      'server {\n    location ~ ^/a{2}$ {\n        return 204;\n    }\n}\n',
      6,
      'unexpected end of file, expecting "}"',
    ],
    ['a comment hiding the }', 'server { return 204; # }\n', 2, 'unexpected end of file, expecting "}"'],
    ['an escaped ;', 'server {\n    return 204\\;\n}', 3, 'unexpected "}"'],
    ['a backslash at the end', 'return 200 \\', 1, 'unexpected end of file, expecting ";" or "}"'],
    [
      'a directive left open by a closing quote',
      'return 200 "ok"',
      1,
      'unexpected end of file, expecting ";" or "}"',
    ],
    ['CRLF: lines counted at LF', 'a;\r\n\r\n}\r\n', 3, 'unexpected "}"'],
    ['a lone CR does not end a line', 'a;\r\r}', 1, 'unexpected "}"'],
    ['unicode before the problem', '# ✓ 日本語\nreturn 200 "🚀"🚀;', 2, 'unexpected "🚀"'],
    [
      'a parameter filling nginx buffer',
      `return 200 x${LONG_PARAMETER};`,
      1,
      'too long parameter "xxxxxxxxxx..." started',
    ],
    [
      'a quoted parameter and its closing quote filling nginx buffer',
      `return 200 "${LONG_PARAMETER}";`,
      1,
      'too long parameter "xxxxxxxxxx..." started',
    ],
    [
      'a comment filling nginx buffer',
      `\n#${LONG_PARAMETER}\nreturn 204;`,
      2,
      'too long parameter "#xxxxxxxxx..." started',
    ],
    [
      'an unterminated quote in a long file',
      `\nadd_header X "oops;\n${'return 204;\n'.repeat(400)}`,
      2,
      'too long parameter, probably missing terminating """ character',
    ],
    [
      'an unterminated single quote in a long file',
      `add_header X 'oops;\n${'return 204;\n'.repeat(400)}`,
      1,
      'too long parameter, probably missing terminating "\'" character',
    ],
    [
      'a long parameter of multi-byte characters',
      `return 200 ${'é'.repeat(2048)};`,
      1,
      'too long parameter "ééééé..." started',
    ],
    [
      'a long parameter with an escaped line break',
      `return 200 a\\\nb${LONG_PARAMETER};`,
      1,
      'too long parameter "a\\\\nbxxxxxx..." started',
    ],
  ])('refuses %s', (_name, text, line, message) => {
    expect(nginxConfigProblems(text)).toEqual([{ line, message }]);
  });

  describe('size', () => {
    // Lines of 2,002 bytes: comments of two-byte characters, short enough for nginx's buffer.
    const line = `#${'é'.repeat(1000)}\n`;
    const lines = Math.floor(MAX_CONFIG_BYTES / 2002);
    const atLimit = line.repeat(lines) + ' '.repeat(MAX_CONFIG_BYTES - lines * 2002);

    it('takes exactly MAX_CONFIG_BYTES', () => {
      expect(new TextEncoder().encode(atLimit).length).toBe(MAX_CONFIG_BYTES);
      expect(nginxConfigProblems(atLimit)).toEqual([]);
    });

    it.each([
      ['one byte more', 'x'],
      ['one two-byte character more', 'é'],
      ['one four-byte character more', '🚀'],
    ])('refuses %s, at the line where the limit is crossed', (_name, more) => {
      expect(nginxConfigProblems(atLimit + more)).toEqual([
        { line: lines + 1, message: `configuration is larger than ${MAX_CONFIG_BYTES} bytes` },
      ]);
    });

    it('refuses a large configuration before reading its syntax', () => {
      expect(nginxConfigProblems(`}\n${atLimit}`)).toEqual([
        { line: lines + 2, message: `configuration is larger than ${MAX_CONFIG_BYTES} bytes` },
      ]);
    });
  });
});

describe('describeConfigProblem', () => {
  it('renders the line and the message', () => {
    expect(describeConfigProblem({ line: 3, message: 'unexpected "}"' })).toBe('line 3: unexpected "}"');
    expect(nginxConfigProblems('a {\n}\n}').map(describeConfigProblem)).toEqual(['line 3: unexpected "}"']);
  });
});

// Well-formed configurations, rendered as pieces so a property can tell the `;`, `{` and `}` that end
// directives and blocks from those inside quotes and comments.

interface Piece {
  text: string;
  structural?: boolean;
}
type Node = { name: string; parameters: string[]; children?: Node[] } | { comment: string };

/**
 * A parameter nginx reads whole without quotes: no whitespace, `;`, `{` or backslash, no `#`, quote or `}` first,
 * and `$` only as `${name}` or before another character (a `$` just before a block's `{` would take the brace).
 */
const BARE = /^(?![#"'}])(?:[^ \t\r\n;{\\$]|\$\{[a-z]+\}|\$(?!\{|$))+$/;

/** Any text, quoted so nginx reads it back as one parameter; bare where that needs no quotes. */
const parameter = fc
  .tuple(
    fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 12 }),
      fc.string({ unit: 'binary', maxLength: 12 }),
      fc.constantFrom('${var}', '$var', 'a#b', 'a}b', '\\.php$', '(', ')', 'é', '🚀', ''),
    ),
    fc.constantFrom('bare', '"', "'"),
  )
  .map(([text, quoting]) => {
    if (quoting === 'bare' && BARE.test(text)) return text;
    const quote = quoting === "'" ? "'" : '"';
    return quote + text.replace(quote === '"' ? /[\\"]/g : /[\\']/g, '\\$&') + quote;
  });

const tree = fc.letrec<{ node: Node }>((tie) => ({
  node: fc.oneof(
    { maxDepth: 4, depthSize: 'small', withCrossShrink: true },
    fc.record({
      name: fc.stringMatching(/^[a-z_]{1,8}$/),
      parameters: fc.array(parameter, { maxLength: 4 }),
    }),
    fc.string({ maxLength: 20 }).map((text) => ({ comment: text.replace(/\n/g, ' ') })),
    fc.record({
      name: fc.stringMatching(/^[a-z_]{1,8}$/),
      parameters: fc.array(parameter, { maxLength: 3 }),
      children: fc.array(tie('node'), { maxLength: 4 }),
    }),
  ),
})).node;

const spaces = fc.array(fc.constantFrom(' ', '\t', '\n', '\r\n', '\n    ', ' \n\n '), {
  minLength: 1,
  maxLength: 8,
});

function render(nodes: Node[], gaps: string[]): Piece[] {
  let gap = 0;
  const space = (): Piece => ({ text: gaps[gap++ % gaps.length]! });
  const pieces = (node: Node): Piece[] => {
    if ('comment' in node) return [space(), { text: `#${node.comment}\n` }];
    const words = [node.name, ...node.parameters].flatMap((word) => [space(), { text: word }]);
    if (!node.children) return [...words, { text: ';', structural: true }];
    return [
      ...words,
      { text: '{', structural: true },
      ...node.children.flatMap(pieces),
      space(),
      { text: '}', structural: true },
    ];
  };
  return nodes.flatMap((node) => [...pieces(node), space()]);
}

const config = fc.tuple(fc.array(tree, { maxLength: 6 }), spaces).map(([nodes, gaps]) => render(nodes, gaps));
const join = (pieces: Piece[]): string => pieces.map((piece) => piece.text).join('');

describe('nginxConfigProblems on generated configurations', () => {
  it('accepts every well-formed one', () => {
    fc.assert(
      fc.property(config, (pieces) => {
        expect(nginxConfigProblems(join(pieces))).toEqual([]);
      }),
      { numRuns: 500 },
    );
  });

  it('refuses one missing a { or }, and takes one missing a ; or refuses it in range', () => {
    const withDeletion = config
      .filter((pieces) => pieces.some((piece) => piece.structural))
      .chain((pieces) => {
        const structural = pieces.flatMap((piece, index) => (piece.structural ? [index] : []));
        return fc.tuple(fc.constant(pieces), fc.constantFrom(...structural));
      });
    fc.assert(
      fc.property(withDeletion, ([pieces, deleted]) => {
        const text = join(pieces.filter((_piece, index) => index !== deleted));
        const problems = nginxConfigProblems(text);
        if (pieces[deleted]!.text !== ';') expect(problems).toHaveLength(1);
        expect(problems.length).toBeLessThanOrEqual(1);
        for (const { line } of problems) {
          expect(line).toBeGreaterThanOrEqual(1);
          expect(line).toBeLessThanOrEqual(text.split('\n').length);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('never throws, finds at most one problem, and names a line of the text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        const problems = nginxConfigProblems(text);
        expect(problems.length).toBeLessThanOrEqual(1);
        for (const { line } of problems) expect(line).toBeLessThanOrEqual(text.split('\n').length);
      }),
      { numRuns: 1000 },
    );
  });
});
