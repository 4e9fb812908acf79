import { appendFileSync, mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AuditLogFollower } from './audit-log-follower.js';

const followers: AuditLogFollower[] = [];
afterEach(async () => {
  for (const follower of followers.splice(0)) await follower.close();
});

function setup(chunkBytes?: number) {
  const dir = mkdtempSync(join(tmpdir(), 'ngx-audit-log-'));
  const path = join(dir, 'audit.log');
  const positionFile = join(dir, 'state', 'position.json');
  const follower = () => {
    const made = new AuditLogFollower({ path, positionFile, chunkBytes });
    followers.push(made);
    return made;
  };
  return { dir, path, follower };
}

/** Reads and commits until nothing new comes. */
async function drain(follower: AuditLogFollower): Promise<string[]> {
  const lines: string[] = [];
  for (;;) {
    const chunk = await follower.next();
    if (chunk.lines.length === 0 && chunk.position.offset === (await follower.next()).position.offset) {
      await follower.commit(chunk);
      return lines;
    }
    lines.push(...chunk.lines);
    await follower.commit(chunk);
  }
}

describe('AuditLogFollower', () => {
  it('waits for the file, answers complete lines only, and keeps a line being written until it ends', async () => {
    const { path, follower } = setup();
    const reader = follower();
    expect((await reader.next()).lines).toEqual([]);
    writeFileSync(path, '{"a":1}\n{"b":');
    expect(await drain(reader)).toEqual(['{"a":1}']);
    appendFileSync(path, '2}\n');
    expect(await drain(reader)).toEqual(['{"b":2}']);
  });

  it('reads a rotated file to its end before the new one, and a truncated one from its start', async () => {
    const { dir, path, follower } = setup();
    const reader = follower();
    writeFileSync(path, 'one\n');
    expect(await drain(reader)).toEqual(['one']);
    appendFileSync(path, 'two\n');
    renameSync(path, join(dir, 'audit-2026-11-26T10-00-00.000.log'));
    writeFileSync(path, 'three\n');
    expect(await drain(reader)).toEqual(['two', 'three']);
    writeFileSync(path, 'x\n');
    expect(await drain(reader)).toEqual(['x']);
  });

  it('resumes after a restart at the first line not committed, even when the log was rotated meanwhile', async () => {
    const { dir, path, follower } = setup();
    const first = follower();
    writeFileSync(path, 'one\ntwo\n');
    const chunk = await first.next();
    expect(chunk.lines).toEqual(['one', 'two']);
    await first.close(); // not committed: read again
    const second = follower();
    expect(await drain(second)).toEqual(['one', 'two']);
    await second.close();
    appendFileSync(path, 'three\n');
    renameSync(path, join(dir, 'audit-2026-11-26T11-00-00.000.log'));
    writeFileSync(path, 'four\n');
    expect(await drain(follower())).toEqual(['three', 'four']);
  });

  it('takes a line longer than its read size whole', async () => {
    const { path, follower } = setup(8);
    const reader = follower();
    writeFileSync(path, `${'y'.repeat(30)}\nshort\n`);
    expect(await drain(reader)).toEqual(['y'.repeat(30), 'short']);
  });
});
