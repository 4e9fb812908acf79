import { dirname, resolve } from 'node:path';

interface Mount {
  /** The path inside its source filesystem that is mounted (a kubelet volume's directory, for a bind mount). */
  root: string;
  mountPoint: string;
  fsType: string;
}

/** Undoes mountinfo's octal escapes (`\040` for a space). */
const unescape = (field: string) =>
  field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));

/** The mounts listed in a /proc/<pid>/mountinfo text. */
function mounts(mountinfo: string): Mount[] {
  const found: Mount[] = [];
  for (const line of mountinfo.split('\n')) {
    const fields = line.trim().split(' ');
    const separator = fields.indexOf('-');
    if (fields.length < 5 || separator < 0 || !fields[separator + 1]) continue;
    found.push({
      root: unescape(fields[3]!),
      mountPoint: unescape(fields[4]!),
      fsType: fields[separator + 1]!,
    });
  }
  return found;
}

const within = (path: string, mountPoint: string) =>
  mountPoint === '/' || path === mountPoint || path.startsWith(`${mountPoint}/`);

/**
 * Why a SQLite file at `file` would not outlive its pod, from the process's mount table: its directory is an
 * `emptyDir` volume, a memory-backed one, or the container's own filesystem. Undefined when it lies on another
 * volume (a PersistentVolumeClaim or a host path), or when the table does not tell.
 */
export function ephemeralSqliteStorage(file: string, mountinfo: string): string | undefined {
  const directory = dirname(resolve(file));
  const mount = mounts(mountinfo)
    .filter((m) => within(directory, m.mountPoint))
    .sort((a, b) => b.mountPoint.length - a.mountPoint.length)[0];
  if (!mount) return undefined;
  if (mount.root.includes('kubernetes.io~empty-dir')) return `an emptyDir volume at ${mount.mountPoint}`;
  if (mount.fsType === 'tmpfs') return `a memory-backed volume at ${mount.mountPoint}`;
  if (mount.mountPoint === '/') return "the container's own filesystem";
  return undefined;
}
