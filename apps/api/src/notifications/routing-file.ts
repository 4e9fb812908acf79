import { readFileSync, statSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import { parseRouting, type Routing } from './routing.js';

export interface RoutingFileOptions {
  file: string;
  /** How often the file's modification time and size are looked at, besides fs.watch (which may miss a change). */
  pollMs: number;
  onLoaded: (routing: Routing) => void;
  onRefused: (problem: string) => void;
}

/**
 * The routing file, reloaded when it changes: fs.watch on its directory (editors and ConfigMap volumes replace the
 * file rather than write it), and a poll in case the watch misses it. A version that does not load (unreadable,
 * not YAML, refused by parseRouting) is reported and the last good routing stays in force.
 */
export class RoutingFile {
  private routing: Routing | undefined;
  private seen = '';
  private watcher: FSWatcher | undefined;
  private poll: NodeJS.Timeout | undefined;

  constructor(private readonly options: RoutingFileOptions) {}

  /** The routing in force; undefined until a version loaded. */
  get current(): Routing | undefined {
    return this.routing;
  }

  /** Loads the file now (a refusal is reported; the caller decides whether to start without routing), then watches. */
  start(): void {
    this.reload();
    try {
      const name = basename(this.options.file);
      this.watcher = watch(dirname(this.options.file), (_event, changed) => {
        if (!changed || changed === name || changed.startsWith('..')) this.reload();
      });
      this.watcher.on('error', () => this.watcher?.close());
    } catch {
      // The poll alone then.
    }
    this.poll = setInterval(() => this.reload(), this.options.pollMs);
    this.poll.unref();
  }

  stop(): void {
    this.watcher?.close();
    clearInterval(this.poll);
  }

  /** Reads the file again when its size or modification time moved since the last read. */
  reload(): void {
    let version: string;
    let text: string;
    try {
      const stat = statSync(this.options.file);
      version = `${stat.mtimeMs}/${stat.size}/${stat.ino}`;
      if (version === this.seen) return;
      text = readFileSync(this.options.file, 'utf8');
    } catch (error) {
      const problem = `cannot read ${this.options.file}: ${error instanceof Error ? error.message : String(error)}`;
      if (this.seen !== problem) this.options.onRefused(problem);
      this.seen = problem;
      return;
    }
    this.seen = version;
    try {
      this.routing = parseRouting(text, this.options.file);
      this.options.onLoaded(this.routing);
    } catch (error) {
      this.options.onRefused(error instanceof Error ? error.message : String(error));
    }
  }
}
