import { mkdir, open, readdir, readFile, rename, stat, writeFile, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** Where reading stopped: the file (by device and inode, which a rename keeps) and the byte after the last line taken. */
export interface LogPosition {
  dev: number;
  ino: number;
  offset: number;
}

/** What the follower hands on: the complete lines read, and where reading stands once they are taken. */
export interface LogChunk {
  lines: string[];
  position: LogPosition;
}

export interface AuditLogFollowerOptions {
  /** The log kube-apiserver writes (--audit-log-path). */
  path: string;
  /** Where the position is kept between runs (written whole, then renamed into place). */
  positionFile: string;
  /** Most bytes read at once. */
  chunkBytes?: number;
}

/**
 * Follows a JSON-lines log as kube-apiserver writes it (--audit-log-path), rotation-safe and resuming where it
 * stopped. Guarantees:
 * - `next()` answers complete lines only, in file order; a line still being written is kept until its newline.
 * - Nothing is skipped across a rotation (the file renamed and a new one made, as kube-apiserver's log rotation
 *   does): the renamed file is read to its end first, found by its inode in the same directory, then the new one
 *   from its start. A file cut shorter than the position (truncated) is read again from its start.
 * - The position moves only when the caller says the lines were taken (`commit`), and is kept in `positionFile`:
 *   after a restart reading resumes at the first line not committed, in whichever file now holds it (so a line is
 *   taken at least once; the audit trail's records of an event are stored once).
 * Not safe for concurrent calls: one reader.
 */
export class AuditLogFollower {
  private position: LogPosition | undefined;
  private handle: FileHandle | undefined;
  private readonly chunkBytes: number;

  constructor(private readonly options: AuditLogFollowerOptions) {
    this.chunkBytes = options.chunkBytes ?? 4 * 1024 * 1024;
  }

  /** The next complete lines from the position; none when there is nothing new (or no file yet). */
  async next(): Promise<LogChunk> {
    this.position ??= await this.savedPosition();
    const current = await statOrUndefined(this.options.path);
    if (!current) return { lines: [], position: this.position ?? { dev: 0, ino: 0, offset: 0 } };
    let position = this.position;
    if (!position) position = { dev: current.dev, ino: current.ino, offset: 0 };
    const sameFile = position.dev === current.dev && position.ino === current.ino;
    if (sameFile) {
      if (current.size < position.offset) position = { ...position, offset: 0 };
      return this.read(this.options.path, position);
    }
    // Rotated: finish the file the position names (renamed next to it), then start the new one.
    const rotated = await this.rotatedFile(position);
    if (rotated) {
      const chunk = await this.read(rotated, position);
      if (chunk.lines.length > 0 || chunk.position.offset !== position.offset) return chunk;
    }
    await this.closeHandle();
    return this.read(this.options.path, { dev: current.dev, ino: current.ino, offset: 0 });
  }

  /** Takes the lines of `chunk` as handled: reading goes on after them, now and after a restart. */
  async commit(chunk: LogChunk): Promise<void> {
    this.position = chunk.position;
    const temporary = `${this.options.positionFile}.tmp`;
    await mkdir(dirname(this.options.positionFile), { recursive: true });
    await writeFile(temporary, JSON.stringify(chunk.position));
    await rename(temporary, this.options.positionFile);
  }

  async close(): Promise<void> {
    await this.closeHandle();
  }

  private async read(path: string, position: LogPosition): Promise<LogChunk> {
    const handle = await this.handleFor(path, position);
    const buffer = Buffer.alloc(this.chunkBytes);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, position.offset);
    const data = buffer.subarray(0, bytesRead);
    const end = data.lastIndexOf(0x0a);
    if (end < 0) {
      // A single line longer than a chunk is taken whole once it ends; until then nothing is answered.
      if (bytesRead === buffer.length) return this.readLongLine(handle, position);
      return { lines: [], position };
    }
    const lines = data
      .subarray(0, end)
      .toString('utf8')
      .split('\n')
      .filter((line) => line.trim() !== '');
    return { lines, position: { ...position, offset: position.offset + end + 1 } };
  }

  /** A line longer than chunkBytes: read on until its newline (none yet: nothing answered). */
  private async readLongLine(handle: FileHandle, position: LogPosition): Promise<LogChunk> {
    const parts: Buffer[] = [];
    let offset = position.offset;
    for (;;) {
      const buffer = Buffer.alloc(this.chunkBytes);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, offset);
      if (bytesRead === 0) return { lines: [], position };
      const newline = buffer.subarray(0, bytesRead).indexOf(0x0a);
      if (newline >= 0) {
        parts.push(buffer.subarray(0, newline));
        return {
          lines: [Buffer.concat(parts).toString('utf8')],
          position: { ...position, offset: offset + newline + 1 },
        };
      }
      parts.push(buffer.subarray(0, bytesRead));
      offset += bytesRead;
    }
  }

  /** An open handle on the file the position names, kept while it stays the one read. */
  private async handleFor(path: string, position: LogPosition): Promise<FileHandle> {
    if (this.handle) {
      const held = await this.handle.stat();
      if (held.dev === position.dev && held.ino === position.ino) return this.handle;
      await this.closeHandle();
    }
    this.handle = await open(path, 'r');
    return this.handle;
  }

  private async closeHandle(): Promise<void> {
    const handle = this.handle;
    this.handle = undefined;
    await handle?.close();
  }

  /** The file in the log's directory that is the one `position` names (renamed by a rotation), if any. */
  private async rotatedFile(position: LogPosition): Promise<string | undefined> {
    if (this.handle) {
      const held = await this.handle.stat();
      if (held.dev === position.dev && held.ino === position.ino) return this.options.path; // read through the handle
    }
    const directory = dirname(this.options.path);
    const stem = basename(this.options.path).replace(/\.[^.]*$/, '');
    for (const name of await readdir(directory).catch(() => [] as string[])) {
      if (!name.startsWith(stem)) continue;
      const candidate = join(directory, name);
      const found = await statOrUndefined(candidate);
      if (found && found.dev === position.dev && found.ino === position.ino) return candidate;
    }
    return undefined;
  }

  private async savedPosition(): Promise<LogPosition | undefined> {
    try {
      const saved = JSON.parse(await readFile(this.options.positionFile, 'utf8')) as Partial<LogPosition>;
      const valid = [saved.dev, saved.ino, saved.offset].every(
        (value) => Number.isSafeInteger(value) && (value as number) >= 0,
      );
      return valid ? (saved as LogPosition) : undefined;
    } catch {
      return undefined;
    }
  }
}

async function statOrUndefined(path: string) {
  try {
    return await stat(path);
  } catch {
    return undefined;
  }
}
