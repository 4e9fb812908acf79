import type { KubeObject } from './object.js';

const DIGITS = /^\d{1,30}$/;

/**
 * Whether resourceVersion `a` is at least `b`. Kubernetes calls resourceVersions opaque, but every API server
 * backed by etcd3 (all of them today) hands out etcd revisions: integers that grow with every write across the
 * cluster. Undefined when either is not such an integer, so a caller can fall back to not comparing.
 */
export function resourceVersionAtLeast(a: string, b: string): boolean | undefined {
  if (!DIGITS.test(a) || !DIGITS.test(b)) return undefined;
  return BigInt(a) >= BigInt(b);
}

/** `Kind` for the core group, `Kind.group` otherwise (kubectl's notation): the key of a collection's kind. */
export function kindKey(object: KubeObject): string | undefined {
  const { apiVersion, kind } = object;
  if (!apiVersion || !kind) return undefined;
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? kind : `${kind}.${apiVersion.slice(0, slash)}`;
}

/**
 * The highest resourceVersion written, per kind: what a leader hands its successor, so the successor acts only
 * once its caches have seen every one of those writes. Serialised as compact JSON, `{"Pod":"1234"}`.
 */
export class WrittenVersions {
  private readonly highest = new Map<string, string>();

  /** Notes a written object (the API server's answer to the write); objects without a numeric version are skipped. */
  note(object: KubeObject): void {
    const kind = kindKey(object);
    const version = object.metadata?.resourceVersion;
    if (!kind || !version) return;
    const current = this.highest.get(kind);
    if (current === undefined ? DIGITS.test(version) : resourceVersionAtLeast(version, current))
      this.highest.set(kind, version);
  }

  get(kind: string): string | undefined {
    return this.highest.get(kind);
  }

  get size(): number {
    return this.highest.size;
  }

  encode(): string {
    return JSON.stringify(Object.fromEntries(this.highest));
  }

  /** Reads a note made by `encode`; anything malformed reads as empty (the note is advice, never required). */
  static decode(note: string | undefined): WrittenVersions {
    const versions = new WrittenVersions();
    if (!note) return versions;
    try {
      const parsed: unknown = JSON.parse(note);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
        for (const [kind, version] of Object.entries(parsed))
          if (typeof version === 'string' && DIGITS.test(version)) versions.highest.set(kind, version);
    } catch {
      /* not ours, or damaged: nothing to wait for */
    }
    return versions;
  }
}
