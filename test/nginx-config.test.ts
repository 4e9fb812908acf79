import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  TLS_MOUNT_PATH,
  mountedConfigFiles,
  nginxConfigProblems,
  podTemplateOf,
  type ConfigProblem,
  type NginxSpec,
} from '../libs/nginx-api/src/index.js';
import { extraConfigs, invalid, valid } from './fixtures/nginx-configs.js';
import { findNginx } from './support/nginx-binary.js';

// spec.config against Debian's `nginx -t` (tools/setup.sh installs it), included the way the official nginx image
// includes /etc/nginx/conf.d/default.conf. No cluster: nginx runs here, as whoever runs the tests.

const run = promisify(execFile);

/**
 * The official image's /etc/nginx/nginx.conf, with everything nginx writes (pid, logs, temporary files) in `dir`
 * so an unprivileged user can test it, and a small mime.types of its own.
 */
const mainConfig = (dir: string): string => `worker_processes  auto;

error_log  stderr notice;
pid        ${dir}/nginx.pid;

events {
    worker_connections  1024;
}

http {
    include       ${dir}/mime.types;
    default_type  application/octet-stream;

    log_format  main  '$remote_addr - $remote_user [$time_local] "$request" '
                      '$status $body_bytes_sent "$http_referer" '
                      '"$http_user_agent" "$http_x_forwarded_for"';

    access_log  ${dir}/access.log  main;

    client_body_temp_path  ${dir}/client_body_temp;
    proxy_temp_path        ${dir}/proxy_temp;
    fastcgi_temp_path      ${dir}/fastcgi_temp;
    uwsgi_temp_path        ${dir}/uwsgi_temp;
    scgi_temp_path         ${dir}/scgi_temp;

    sendfile        on;

    keepalive_timeout  65;

    include ${dir}/conf.d/*.conf;
}
`;

const MIME_TYPES = `types {
    text/html                 html htm;
    text/css                  css;
    application/javascript    js;
    application/json          json;
    image/png                 png;
    image/svg+xml             svg;
}
`;

interface NginxVerdict {
  ok: boolean;
  /** What nginx printed, for failure messages. */
  output: string;
  /** The first `[emerg]` with its place, when nginx named one. */
  problem?: ConfigProblem & { file: string };
}

/** The problems nginx reports as syntax (as opposed to a directive's arguments or context). */
const SYNTAX_MESSAGE = /^(unexpected |too long parameter)/;

/**
 * A problem with any run of non-ASCII characters made one: nginx quotes bytes (`unexpected "\xF0"`, ten bytes of a
 * long parameter) where the checker quotes whole characters.
 */
const comparable = ({ line, message }: ConfigProblem): ConfigProblem => ({
  line,
  message: message.replace(/[^\p{ASCII}]+/gu, '…'),
});

const NGINX = findNginx();

describe.skipIf(NGINX === undefined)(
  NGINX === undefined
    ? 'nginx -t (SKIPPED: no nginx on PATH, in /usr/sbin or /usr/local/sbin; tools/setup.sh installs it)'
    : `nginx -t (${NGINX})`,
  () => {
    let dir: string;
    let configFile: string;

    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'nginx-config-'));
      mkdirSync(join(dir, 'conf.d'));
      configFile = join(dir, 'conf.d', 'default.conf');
      writeFileSync(join(dir, 'nginx.conf'), mainConfig(dir));
      writeFileSync(join(dir, 'mime.types'), MIME_TYPES);
    });
    afterAll(() => {
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    async function nginxTest(config: string): Promise<NginxVerdict> {
      writeFileSync(configFile, config);
      const args = ['-t', '-q', '-e', 'stderr', '-p', `${dir}/`, '-c', join(dir, 'nginx.conf')];
      try {
        const { stderr } = await run(NGINX!, args);
        return { ok: true, output: stderr };
      } catch (error) {
        const output = String((error as { stderr?: unknown }).stderr ?? error);
        // The message can span lines: nginx quotes what it read, line breaks and all.
        const emerg = /\[emerg\] (?:\d+#\d+: )?([\s\S]*?) in (\S+):(\d+)$/m.exec(output);
        const problem = emerg && { message: emerg[1]!, file: emerg[2]!, line: Number(emerg[3]) };
        return { ok: false, output, ...(problem && { problem }) };
      }
    }

    it('the harness itself passes nginx -t', async () => {
      const verdict = await nginxTest('');
      expect(verdict.ok, verdict.output).toBe(true);
    });

    // spec.tls: the files a pod mounts in conf.d (default.conf and the TLS wrapper), with a real self-signed
    // certificate from openssl where the pod mounts the Secret (here under the test's directory).
    it.each<[string, NginxSpec]>([
      ['spec.config on 8080', { replicas: 1, port: 8080, config: valid[0]!.text, tls: { secretName: 't' } }],
      ['the default server on 80', { replicas: 1, tls: { secretName: 't' } }],
    ])('accepts the TLS wrapper beside %s, with a real certificate', async (_name, spec) => {
      const tlsDir = join(dir, 'tls');
      mkdirSync(tlsDir, { recursive: true });
      await run('openssl', [
        'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=web.example.com',
        '-keyout', join(tlsDir, 'tls.key'), '-out', join(tlsDir, 'tls.crt'),
      ]); // prettier-ignore
      const files = mountedConfigFiles(podTemplateOf(spec))!;
      expect(files['tls.conf']).toContain(`${TLS_MOUNT_PATH}/tls.crt`);
      const tlsFile = join(dir, 'conf.d', 'tls.conf');
      writeFileSync(tlsFile, files['tls.conf']!.replaceAll(TLS_MOUNT_PATH, tlsDir));
      try {
        const verdict = await nginxTest(files['default.conf']!);
        expect(verdict.ok, verdict.output).toBe(true);
      } finally {
        rmSync(tlsFile);
      }
    });

    it.each([...valid, ...extraConfigs])('accepts $name, as nginx does', async ({ text }) => {
      expect(nginxConfigProblems(text)).toEqual([]);
      const verdict = await nginxTest(text);
      expect(verdict.ok, verdict.output).toBe(true);
    });

    it.each(invalid)('refuses $name at the line nginx names', async ({ text, line, message }) => {
      expect(nginxConfigProblems(text)).toEqual([{ line, message }]);
      const verdict = await nginxTest(text);
      expect(verdict.ok).toBe(false);
      expect(verdict.problem, verdict.output).toEqual({ file: configFile, line, message });
    });

    it('accepts generated configurations of safe directives, as nginx does', async () => {
      await fc.assert(
        fc.asyncProperty(serverConfig({ longParameters: false }), async (text) => {
          expect(nginxConfigProblems(text)).toEqual([]);
          const verdict = await nginxTest(text);
          expect(verdict.ok, `${verdict.output}\n${text}`).toBe(true);
        }),
        { numRuns: 40 },
      );
    });

    it('with one character deleted or inserted, it refuses what nginx refuses as syntax, at the same line', async () => {
      const edit = fc.record({
        at: fc.nat(),
        insert: fc.option(fc.constantFrom(';', '{', '}', '"', "'", '\\', '#', '$', '\n', ' ', 'x'), {
          nil: undefined,
        }),
      });
      await fc.assert(
        fc.asyncProperty(serverConfig({ longParameters: true }), edit, async (config, { at, insert }) => {
          const index = at % (config.length + 1);
          const text = config.slice(0, index) + (insert ?? '') + config.slice(insert ? index : index + 1);
          const ours = nginxConfigProblems(text);
          const verdict = await nginxTest(text);
          const context = `${verdict.output}\n--- config ---\n${text}`;
          if (verdict.ok) expect(ours, context).toEqual([]);
          else if (verdict.problem && SYNTAX_MESSAGE.test(verdict.problem.message))
            expect(ours.map(comparable), context).toEqual([comparable(verdict.problem)]);
          else if (ours.length > 0) {
            // nginx stopped earlier, at a directive it refuses: it reads up to our problem, never past it.
            expect(verdict.problem?.file, context).toBe(configFile);
            expect(verdict.problem?.line, context).toBeLessThanOrEqual(ours[0]!.line);
          }
        }),
        { numRuns: 200 },
      );
    });
  },
);

// Generated configurations: servers of locations, add_header, return and set (no `if`), with values that need
// quotes and escapes, ${variables}, comments holding braces and quotes, and every kind of whitespace.

const VARIABLES = ['greeting', 'target', 'v_1'];

/** Text without `$`, which nginx would read as a variable. */
const plainText = (maxLength: number) =>
  fc.string({ unit: 'grapheme', maxLength }).filter((text) => !text.includes('$'));

const variable = fc.constantFrom(...VARIABLES).map((name) => '${' + name + '}');
const shortValue = fc
  .array(fc.oneof(plainText(12), variable), { maxLength: 4 })
  .map((parts) => parts.join(''));
/** Around nginx's 4096-byte read buffer, in one- to four-byte characters. */
const longValue = fc
  .tuple(fc.integer({ min: 4000, max: 4100 }), fc.constantFrom('a', 'é', '✓', '🚀'))
  .map(([bytes, ch]) => ch.repeat(Math.ceil(bytes / Buffer.byteLength(ch))));
const value = (longParameters: boolean) =>
  longParameters
    ? fc.oneof({ weight: 8, arbitrary: shortValue }, { weight: 1, arbitrary: longValue })
    : shortValue;

/** `value` as one parameter: bare when nginx would read it back whole, else double or single quoted. */
const parameter = (longParameters: boolean) =>
  fc.tuple(value(longParameters), fc.constantFrom('bare', '"', "'")).map(([text, quoting]) => {
    if (quoting === 'bare' && /^[^ \t\r\n;{}"'#\\$][^ \t\r\n;{\\$]*$/.test(text)) return text;
    const quote = quoting === "'" ? "'" : '"';
    return quote + text.replace(quote === '"' ? /[\\"]/g : /[\\']/g, '\\$&') + quote;
  });

type Node = { directive: string[] } | { comment: string } | { location: string; children: Node[] };

const headerName = fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,15}$/);

const directive = (longParameters: boolean): fc.Arbitrary<Node> =>
  fc.oneof(
    fc.tuple(headerName, parameter(longParameters), fc.boolean()).map(([name, text, always]) => ({
      directive: ['add_header', name, text, ...(always ? ['always'] : [])],
    })),
    fc
      .tuple(fc.constantFrom('200', '204', '403', '404', '418', '503'), fc.option(parameter(longParameters)))
      .map(([code, text]) => ({ directive: ['return', code, ...(text === null ? [] : [text])] })),
    fc
      .tuple(fc.constantFrom(...VARIABLES), parameter(longParameters))
      .map(([name, text]) => ({ directive: ['set', `$${name}`, text] })),
    fc
      .tuple(value(longParameters), fc.constantFrom('', ' { } " \' ; #'))
      .map(([text, noise]) => ({ comment: (text + noise).replace(/\n/g, ' ') })),
  );

/** Location trees; paths are numbered when rendered, so no two are the same. */
const locations = (longParameters: boolean) =>
  fc.letrec<{ node: Node }>((tie) => ({
    node: fc.oneof(
      { maxDepth: 3, depthSize: 'small', withCrossShrink: true },
      directive(longParameters),
      fc
        .tuple(fc.constantFrom('prefix', '=', '~', '~*'), fc.array(tie('node'), { maxLength: 4 }))
        .map(([location, children]) => ({ location, children })),
    ),
  })).node;

function render(nodes: Node[], spaces: string[]): string {
  let counter = 0;
  let gap = 0;
  const space = (): string => spaces[gap++ % spaces.length]!;
  const renderNodes = (list: Node[], path: string): string =>
    list
      .map((node) => {
        if ('comment' in node) return `#${node.comment}\n`;
        if ('directive' in node) return node.directive.join(space()) + (gap % 3 ? space() : '') + ';';
        const n = counter++;
        // Only prefix locations hold others, and a nested one must lie under its parent's path.
        const [modifier, nested] =
          node.location === 'prefix'
            ? ['', `${path}/p${n}`]
            : node.location === '='
              ? ['=', `${path}/e${n}`]
              : [node.location, `"^${path}/r${n}/[a-z]{2}$"`];
        const children =
          node.location === 'prefix' ? node.children : node.children.filter((c) => !('location' in c));
        const head = ['location', ...(modifier ? [modifier] : []), nested].join(' ');
        return `${head}${space()}{${space()}${renderNodes(children, nested)}${space()}}`;
      })
      .join(space());
  return renderNodes(nodes, '');
}

function serverConfig({ longParameters }: { longParameters: boolean }): fc.Arbitrary<string> {
  const spaces = fc.array(fc.constantFrom(' ', '  ', '\n', '\n    ', '\t', '\r\n', ' \n\n  '), {
    minLength: 1,
    maxLength: 16,
  });
  const server = fc.array(locations(longParameters), { maxLength: 6 });
  return fc.tuple(fc.array(server, { minLength: 1, maxLength: 3 }), spaces).map(([servers, gaps]) =>
    servers
      .map((nodes, index) => {
        // Every variable that values use is declared, by the first server.
        const declared = index === 0 ? VARIABLES.map((name) => `set $${name} "${name}";`).join('\n') : '';
        return `server {\n    listen ${8080 + index};\n${declared}\n${render(nodes, gaps)}\n}\n`;
      })
      .join('\n'),
  );
}
