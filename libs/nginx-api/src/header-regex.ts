/**
 * Why `source` cannot be a header match's regular expression, or undefined when it can. Gateway implementations
 * compile it with RE2 (Go's regexp, Envoy): it must compile here, and use nothing RE2 refuses that JavaScript
 * takes (lookaround, backreferences, possessive or atomic groups).
 */
export function headerRegexProblem(source: string): string | undefined {
  try {
    // RE2's flag groups, (?i) and (?i:…), which this JavaScript lacks, are read as plain groups.
    new RegExp(source.replace(/\(\?[imsU]+\)/g, '').replace(/\(\?[imsU]+:/g, '(?:'), 'u');
  } catch (error) {
    return (error as Error).message.replace(/^Invalid regular expression: /, '');
  }
  const unsupported = RE2_UNSUPPORTED.find(([pattern]) => pattern.test(unescapedOnly(source)));
  return unsupported ? `${unsupported[1]} are not supported (RE2 syntax)` : undefined;
}

const RE2_UNSUPPORTED: [RegExp, string][] = [
  [/\(\?<?[=!]/, 'lookaround assertions'],
  [/\\[1-9]|\\k</, 'backreferences'],
  [/\(\?>/, 'atomic groups'],
];

/** `source` with escaped characters blanked (`\(` is no group), so the checks above see only live syntax. */
function unescapedOnly(source: string): string {
  return source.replace(/\\([^1-9k])/g, '__');
}
