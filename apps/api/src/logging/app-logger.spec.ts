import { afterEach, describe, expect, it, vi } from 'vitest';
import { Logger } from '@nestjs/common';
import { AppLogger } from './app-logger.js';
import { nestRuntimeLogger } from './runtime-logger.js';

function capture() {
  const lines: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (lines.push(String(chunk)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (lines.push(String(chunk)), true));
  return lines;
}

describe('AppLogger', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    Logger.overrideLogger(false);
  });

  it('prints one JSON object per line with the fields at the top level', () => {
    const lines = capture();
    Logger.overrideLogger(new AppLogger('json'));
    nestRuntimeLogger(new Logger('NginxController')).warn('reconciled', { key: 'default/web', attempt: 2 });
    new Logger('Main').log('listening on http://127.0.0.1:3000');
    const [first, second] = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(first).toMatchObject({
      level: 'warn',
      context: 'NginxController',
      message: 'reconciled',
      key: 'default/web',
      attempt: 2,
    });
    expect(typeof first!.timestamp).toBe('number');
    expect(second).toMatchObject({
      level: 'log',
      context: 'Main',
      message: 'listening on http://127.0.0.1:3000',
    });
  });

  it('prints the message and its fields on one line in text mode', () => {
    const lines = capture();
    Logger.overrideLogger(new AppLogger('text'));
    nestRuntimeLogger(new Logger('NginxController')).info('reconciled', { key: 'default/web' });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/\[NginxController\] reconciled \{"key":"default\/web"\}\n$/);
  });
});
