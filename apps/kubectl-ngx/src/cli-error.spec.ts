import { KubeApiError } from '@ngx/kube-runtime';
import { RequestRefused } from '@ngx/nginx-api';
import { describe, expect, it } from 'vitest';
import { CliError, errorOutput } from './cli-error.js';

describe('errorOutput', () => {
  it('words a server’s refusal, a plan’s refusal and a usage mistake as kubectl does', () => {
    const notFound = new KubeApiError(404, {
      kind: 'Status',
      code: 404,
      reason: 'NotFound',
      message: 'nginxes.mycompany.com "x" not found',
    });
    expect(errorOutput(notFound, '')).toEqual({
      text: 'Error from server (NotFound): nginxes.mycompany.com "x" not found',
      exitCode: 1,
    });
    expect(errorOutput(new RequestRefused(409, 'no canary'), '')).toEqual({
      text: 'Error from server (Conflict): no canary',
      exitCode: 1,
    });
    expect(errorOutput(new KubeApiError(401, { kind: 'Status', code: 401 }), '').text).toBe(
      'error: You must be logged in to the server (Unauthorized)',
    );
    expect(errorOutput(new CliError('bad', 'See help.', 2), '')).toEqual({
      text: 'error: bad\nSee help.',
      exitCode: 2,
    });
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    expect(errorOutput(refused, 'https://127.0.0.1:6443').text).toBe(
      'The connection to the server 127.0.0.1:6443 was refused - did you specify the right host or port?',
    );
  });
});
