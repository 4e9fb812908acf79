import { describe, expect, it } from 'vitest';
import { parseInvocation, usage } from './args.js';
import { CliError } from './cli-error.js';

const refusal = (argv: string[]) => {
  try {
    parseInvocation(argv);
  } catch (error) {
    expect(error).toBeInstanceOf(CliError);
    return `${(error as CliError).message} | ${(error as CliError).hint}`;
  }
  throw new Error('not refused');
};

describe('parseInvocation', () => {
  it('reads the command, its arguments and flags, and kubectl global flags wherever they stand', () => {
    expect(parseInvocation(['-n', 'team', 'get', 'web', '--watch'])).toEqual({
      command: 'get',
      args: ['web'],
      flags: { watch: true },
      namespace: 'team',
    });
    expect(
      parseInvocation(['status', 'web', '--timeout=30s', '--namespace=team', '--context', 'prod']),
    ).toEqual({
      command: 'status',
      args: ['web'],
      flags: { timeout: '30s' },
      namespace: 'team',
      context: 'prod',
    });
    expect(parseInvocation(['get', '-A', '-o', 'yaml'])).toMatchObject({
      flags: { 'all-namespaces': true, output: 'yaml' },
    });
    expect(parseInvocation(['set', 'image', 'web', 'nginx:1.28'])).toMatchObject({
      command: 'set',
      args: ['image', 'web', 'nginx:1.28'],
    });
  });

  it('asks for help with no command, -h or --help', () => {
    expect(parseInvocation([])).toEqual({ help: 'all' });
    expect(parseInvocation(['--help'])).toEqual({ help: 'all' });
    expect(parseInvocation(['promote', '-h'])).toEqual({ help: 'promote' });
    expect(usage('all')).toContain('timeline NAME [--follow] [--since 1h]');
    expect(usage('undo')).toContain('kubectl ngx undo NAME [--to-revision N]');
  });

  it('refuses in kubectl’s words: unknown commands and flags, missing values and arguments', () => {
    expect(refusal(['deploy'])).toBe(
      'unknown command "deploy" for "kubectl ngx" | Run \'kubectl ngx --help\' for usage.',
    );
    expect(refusal(['get', '--wide'])).toBe("unknown flag: --wide | See 'kubectl ngx get --help' for usage.");
    expect(refusal(['get', '-x'])).toBe(
      "unknown shorthand flag: 'x' in -x | See 'kubectl ngx get --help' for usage.",
    );
    expect(refusal(['--frob'])).toBe("unknown flag: --frob | See 'kubectl ngx --help' for usage.");
    expect(refusal(['status', 'web', '--timeout'])).toBe(
      "flag needs an argument: --timeout | See 'kubectl ngx status --help' for usage.",
    );
    expect(refusal(['promote', 'web', '--full=yes'])).toMatch(/^flag --full takes no value/);
    expect(refusal(['why', 'web'])).toBe("why needs NAME POD | See 'kubectl ngx why --help' for usage.");
    expect(refusal(['abort', 'web', 'api'])).toBe(
      'unexpected argument "api" | See \'kubectl ngx abort --help\' for usage.',
    );
    expect(refusal(['set', 'replicas', 'web', '3'])).toMatch(
      /^unknown command "replicas" for "kubectl ngx set"/,
    );
    expect(refusal(['set', 'image', 'web'])).toMatch(/^set image needs NAME IMAGE/);
  });
});
