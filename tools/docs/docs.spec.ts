// The README is the front page and docs/ holds the rest: this keeps what they name real. Every npm script, script
// path, repository path, link, anchor and configuration variable a document names must exist, and every section
// that shows curl or kubectl commands names the integration test that runs them.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];

interface Doc {
  path: string;
  text: string;
  /** Lines outside fenced code blocks. */
  prose: string[];
  /** The contents of each fenced code block, with its language. */
  blocks: { lang: string; body: string; line: number }[];
  /** `## ` and deeper sections: heading, and all their lines (code included). */
  sections: { heading: string; lines: string[] }[];
}

function parse(path: string): Doc {
  const text = read(path);
  const prose: string[] = [];
  const blocks: Doc['blocks'] = [];
  const sections: Doc['sections'] = [{ heading: '(top)', lines: [] }];
  let fence: { lang: string; body: string[]; line: number } | undefined;
  text.split('\n').forEach((line, index) => {
    const open = /^\s*```(\S*)/.exec(line);
    if (fence === undefined && /^#{2,6} /.test(line)) sections.push({ heading: line, lines: [] });
    sections.at(-1)!.lines.push(line);
    if (open && fence === undefined) fence = { lang: open[1] ?? '', body: [], line: index + 1 };
    else if (/^\s*```\s*$/.test(line) && fence !== undefined) {
      blocks.push({ lang: fence.lang, body: fence.body.join('\n'), line: fence.line });
      fence = undefined;
    } else if (fence !== undefined) fence.body.push(line);
    else prose.push(line);
  });
  return { path, text, prose, blocks, sections };
}

const docs = DOCS.map(parse);

/** Inline code spans of the prose (tables included). */
const inlineCode = (doc: Doc) =>
  doc.prose.flatMap((line) =>
    [...line.replaceAll('\\|', '|').matchAll(/`([^`]+)`/g)].map((match) => match[1]!),
  );

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2, … */
function anchors(doc: Doc): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const line of doc.prose) {
    const heading = /^#{1,6} (.*)$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = heading
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
      .replaceAll(' ', '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count === 0 ? base : `${base}-${count}`);
  }
  return result;
}

const scripts = Object.keys(
  (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts,
);
/** npm's own commands a document may name besides scripts (`npm start` and `npm test` run scripts). */
const NPM_COMMANDS = new Set(['install', 'ci', 'exec', 'run']);

/** Every `npm …` command named in a code block or an inline code span: the script it runs. */
function npmScripts(doc: Doc): string[] {
  const sources = [...doc.blocks.map((block) => block.body), ...inlineCode(doc)];
  const named: string[] = [];
  for (const source of sources) {
    for (const match of source.matchAll(
      /(?<![\w-])npm((?:\s+--?[\w-]+)*)\s+([\w:.-]+)((?:\s+--?[\w-]+)*)(?:\s+([\w:.-]+))?/g,
    )) {
      const [, , command, , script] = match;
      if (command === 'run' || command === 'run-script') {
        if (script !== undefined) named.push(script);
      } else if (command === 'start' || command === 'test') named.push(command);
      else if (!NPM_COMMANDS.has(command!)) named.push(`(npm command) ${command}`);
    }
  }
  return named;
}

/** Repository paths named in code (inline or blocks) and in link targets, checked against the work tree. */
const TOP = ['apps', 'libs', 'tools', 'bench', 'test', 'deploy', 'prisma', 'docs', '.ci'];
function repositoryPaths(doc: Doc): string[] {
  const sources = [...doc.blocks.map((block) => block.body), ...inlineCode(doc)];
  const paths = new Set<string>();
  for (const source of sources) {
    for (const match of source.matchAll(
      /(?<![\w./~@-])((?:apps|libs|tools|bench|test|deploy|prisma|docs|\.ci)\/[\w./-]*)/g,
    )) {
      const path = match[1]!.replace(/[.,]+$/, '');
      // A path with a placeholder in it (`<name>`, `{a,b}`, `*`, `…`) is a pattern, not a file.
      const rest = source.slice(match.index + match[0].length);
      if (/^[<{*…]/.test(rest)) continue;
      if (/^apps\/v\d/.test(path)) continue; // the apps/v1 API group, not the folder
      if (TOP.includes(path.split('/')[0]!)) paths.add(path);
    }
  }
  return [...paths];
}

function links(doc: Doc): { target: string; line: string }[] {
  const result: { target: string; line: string }[] = [];
  for (const line of doc.prose) {
    const withoutCode = line.replace(/`[^`]*`/g, '');
    for (const match of withoutCode.matchAll(/\[[^\]]*\]\(([^)\s]+)\)/g))
      result.push({ target: match[1]!, line });
  }
  return result;
}

const apiSource = (() => {
  const texts: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.(ts|mts|mjs|js)$/.test(name)) texts.push(readFileSync(path, 'utf8'));
    }
  };
  walk(join(ROOT, 'apps/api/src'));
  return texts.join('\n');
})();

const clusterScripts = readdirSync(join(ROOT, 'tools/cluster'))
  .map((name) => read(`tools/cluster/${name}`))
  .join('\n');

describe('the README and docs/', () => {
  it('finds the README and the docs', () => {
    expect(DOCS).toContain('README.md');
    expect(DOCS.length).toBeGreaterThan(5);
  });

  it('keeps the README a front page: under 300 lines', () => {
    expect(read('README.md').split('\n').length).toBeLessThan(300);
  });

  it("keeps the README's quick start two commands: one sets everything up and starts the app, one runs every test", () => {
    const readme = docs[0]!;
    const section = readme.sections.find((s) => s.heading === '## Quick start');
    expect(section).toBeDefined();
    const block = readme.blocks.find((b) => section!.lines.join('\n').includes(b.body));
    const commands = block!.body.split('\n').map((line) => line.replace(/#.*/, '').trim());
    expect(commands).toEqual(['npm run up', 'npm test']);
  });

  it('links every doc from the README', () => {
    const linked = links(docs[0]!).map((link) => link.target.split('#')[0]);
    expect(DOCS.filter((path) => path !== 'README.md' && !linked.includes(path))).toEqual([]);
  });

  describe.each(DOCS)('%s', (path) => {
    const doc = docs.find((d) => d.path === path)!;

    it('links only to files that exist, and to headings that exist', () => {
      const broken: string[] = [];
      for (const { target } of links(doc)) {
        if (/^[a-z][\w+.-]*:/i.test(target)) continue; // https:, mailto:
        const [file, anchor] = target.split('#') as [string, string | undefined];
        const resolved = file === '' ? path : relative(ROOT, join(ROOT, dirname(path), file));
        if (resolved.startsWith('..') || !existsSync(join(ROOT, resolved))) {
          broken.push(`${target}: no ${resolved}`);
          continue;
        }
        if (anchor !== undefined && resolved.endsWith('.md')) {
          const target_ = resolved === path ? doc : parse(resolved);
          if (!anchors(target_).has(anchor)) broken.push(`${target}: no heading #${anchor} in ${resolved}`);
        }
      }
      expect(broken).toEqual([]);
    });

    it('names only npm scripts that package.json has', () => {
      expect(npmScripts(doc).filter((script) => !scripts.includes(script))).toEqual([]);
    });

    it('names only repository paths that exist (scripts, sources, tests, manifests)', () => {
      expect(repositoryPaths(doc).filter((p) => !existsSync(join(ROOT, p)))).toEqual([]);
    });

    it('configures only variables the app or the cluster scripts read', () => {
      const unknown: string[] = [];
      // The first column of every table headed `variable`.
      let inTable = false;
      for (const line of doc.prose) {
        if (/^\|\s*variable\s*\|/.test(line)) inTable = true;
        else if (!line.startsWith('|')) inTable = false;
        else if (inTable && !/^\|\s*-/.test(line)) {
          const first = line.split(/(?<!\\)\|/)[1] ?? '';
          for (const [, name] of first.matchAll(/`([A-Z][A-Z0-9_]+)`/g)) {
            if (!new RegExp(`\\b${name}\\b`).test(apiSource)) unknown.push(name!);
          }
        }
      }
      // The local cluster's variables, wherever they are named.
      for (const [name] of doc.text.matchAll(/\bCLUSTER_[A-Z0-9_]+\b/g)) {
        if (!new RegExp(`\\b${name}\\b`).test(clusterScripts)) unknown.push(name);
      }
      expect(unknown).toEqual([]);
    });

    it('names, in each section showing curl or kubectl commands, an integration test that runs them', () => {
      const untested: string[] = [];
      for (const section of doc.sections) {
        const body = section.lines.join('\n');
        const shell = doc.blocks.filter(
          (block) => /^(sh|bash|shell|console)$/.test(block.lang) && body.includes(block.body),
        );
        if (!shell.some((block) => /(^|[\s|(])(curl|kubectl|kcp)\s/m.test(block.body))) continue;
        const tests = [...body.matchAll(/\btest\/[\w./-]+\.test\.ts\b/g)].map((match) => match[0]);
        if (tests.length === 0 || !tests.every((test) => existsSync(join(ROOT, test))))
          untested.push(section.heading);
      }
      expect(untested).toEqual([]);
    });
  });
});
