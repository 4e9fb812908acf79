import { describe, expect, it } from 'vitest';
import {
  hostAllowed,
  hostNameOf,
  hostPatternError,
  hostPolicy,
  isLoopbackAddress,
  isLoopbackHost,
  type HostPolicy,
} from './host-check.js';

describe('hostPolicy', () => {
  it('on a loopback listener without ALLOWED_HOSTS, answers loopback names only', () => {
    for (const listen of ['127.0.0.1', '127.0.0.2', '::1', '[::1]', 'localhost'])
      expect(hostPolicy(undefined, listen)).toEqual({ kind: 'loopback' });
  });

  it('on all interfaces (a cluster) without ALLOWED_HOSTS, answers any host', () => {
    for (const listen of ['0.0.0.0', '::', '10.1.2.3', 'app.internal'])
      expect(hostPolicy(undefined, listen)).toEqual({ kind: 'any' });
  });

  it('with ALLOWED_HOSTS, answers those wherever it listens; * opens it up', () => {
    expect(hostPolicy(['app.example.com'], '0.0.0.0')).toEqual({
      kind: 'listed',
      patterns: ['app.example.com'],
    });
    expect(hostPolicy(['app.example.com'], '127.0.0.1')).toEqual({
      kind: 'listed',
      patterns: ['app.example.com'],
    });
    expect(hostPolicy(['*'], '127.0.0.1')).toEqual({ kind: 'any' });
    expect(hostPolicy([], '127.0.0.1')).toEqual({ kind: 'loopback' });
  });
});

describe('hostNameOf', () => {
  it.each([
    ['127.0.0.1:3000', '127.0.0.1'],
    ['LocalHost:3000', 'localhost'],
    ['localhost.', 'localhost'],
    ['[::1]:3000', '[::1]'],
    ['[0:0:0:0:0:0:0:1]', '[::1]'],
    ['App.Example.com', 'app.example.com'],
    // Numeric forms the URL parser reads as IPv4, as a browser would.
    ['2130706433', '127.0.0.1'],
  ])('reads %s as %s', (header, name) => {
    expect(hostNameOf(header)).toBe(name);
  });

  it.each([
    undefined,
    '',
    'evil.example/path',
    'user@127.0.0.1',
    '127.0.0.1:3000:1',
    'a b',
    '[::1',
    'localhost:99999999',
    'http://localhost',
  ])('refuses %j', (header) => {
    expect(hostNameOf(header)).toBeUndefined();
  });
});

describe('hostAllowed', () => {
  const loopback: HostPolicy = { kind: 'loopback' };
  const listed: HostPolicy = { kind: 'listed', patterns: ['app.example.com', '*.apps.example.com'] };

  it.each(['localhost', 'localhost:3000', '127.0.0.1:3000', '127.1.2.3', '[::1]:3000', 'dev.localhost:3000'])(
    'on loopback, answers %s',
    (host) => {
      expect(hostAllowed(host, loopback)).toBe(true);
    },
  );

  it.each([
    'evil.example',
    'evil.example:3000',
    // DNS rebinding: the attacker's name now resolves to 127.0.0.1, but the browser still sends the name.
    'rebind.attacker.example:3000',
    '10.0.0.5:3000',
    'localhost.evil.example',
    'user@localhost',
    undefined,
    '',
  ])('on loopback, refuses %j', (host) => {
    expect(hostAllowed(host, loopback)).toBe(false);
  });

  it('with a list, answers its names, its wildcards, IP literals and loopback names', () => {
    for (const host of [
      'app.example.com',
      'APP.example.com:443',
      'x.apps.example.com',
      'a.b.apps.example.com:8443',
      '10.244.1.7:3000',
      '[fd00::7]:3000',
      'localhost:3000',
    ])
      expect(hostAllowed(host, listed), host).toBe(true);
  });

  it('with a list, refuses other names', () => {
    for (const host of [
      'example.com',
      'apps.example.com',
      'evilapps.example.com',
      'app.example.com.evil.io',
      undefined,
    ])
      expect(hostAllowed(host, listed), String(host)).toBe(false);
  });

  it('with any, answers everything, even no Host at all', () => {
    expect(hostAllowed('whatever.example', { kind: 'any' })).toBe(true);
    expect(hostAllowed(undefined, { kind: 'any' })).toBe(true);
  });
});

describe('loopback addresses and names', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.200.0.1', true],
    ['::1', true],
    ['::ffff:127.0.0.1', true],
    ['10.0.0.1', false],
    ['::ffff:10.0.0.1', false],
    ['fe80::1', false],
    [undefined, false],
    ['localhost', false],
  ] as const)('address %j: %s', (address, loopback) => {
    expect(isLoopbackAddress(address)).toBe(loopback);
  });

  it('counts localhost and its subdomains as loopback hosts, not look-alikes', () => {
    expect(isLoopbackHost('localhost')).toBe(true);
    expect(isLoopbackHost('a.localhost')).toBe(true);
    expect(isLoopbackHost('[::1]')).toBe(true);
    expect(isLoopbackHost('localhost.example')).toBe(false);
    expect(isLoopbackHost('notlocalhost')).toBe(false);
  });
});

describe('hostPatternError', () => {
  it.each(['app.example.com', '*.example.com', 'localhost', '*'])('accepts %s', (pattern) => {
    expect(hostPatternError(pattern)).toBeUndefined();
  });

  it.each([
    'https://app.example.com',
    'app.example.com:443',
    'app.example.com/',
    '*example.com',
    'a.*.com',
    '',
    'App.Example.com',
  ])('refuses %j', (pattern) => {
    expect(hostPatternError(pattern)).toMatch(/expected a host name/);
  });
});
