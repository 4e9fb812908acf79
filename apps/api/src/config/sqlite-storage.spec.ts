import { describe, expect, it } from 'vitest';
import { ephemeralSqliteStorage } from './sqlite-storage.js';

// Shaped like a container's /proc/self/mountinfo under containerd: overlay root, kubelet volumes bind-mounted.
const MOUNTINFO = [
  '1520 1412 0:318 / / rw,relatime master:512 - overlay overlay rw,lowerdir=/var/lib/x',
  '1521 1520 0:320 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw',
  '1530 1520 254:1 /var/lib/kubelet/pods/3f2a/volumes/kubernetes.io~empty-dir/data /app/.data rw,relatime - ext4 /dev/vda1 rw',
  '1531 1520 0:330 / /app/cache rw,relatime - tmpfs tmpfs rw,size=65536k',
  '1532 1520 254:1 /var/lib/kubelet/pods/3f2a/volumes/kubernetes.io~csi/pvc-1/mount /var/lib/audit rw,relatime - ext4 /dev/vda1 rw',
  '1533 1520 254:1 /var/lib/kubelet/pods/3f2a/volumes/kubernetes.io~empty-dir/with\\040space /app/odd\\040dir rw - ext4 /dev/vda1 rw',
].join('\n');

describe('ephemeralSqliteStorage', () => {
  it('tells an emptyDir, a memory-backed volume and the container filesystem apart from a persistent volume', () => {
    expect(ephemeralSqliteStorage('/app/.data/audit.db', MOUNTINFO)).toBe('an emptyDir volume at /app/.data');
    expect(ephemeralSqliteStorage('/app/cache/audit.db', MOUNTINFO)).toBe(
      'a memory-backed volume at /app/cache',
    );
    expect(ephemeralSqliteStorage('/tmp/audit.db', MOUNTINFO)).toBe("the container's own filesystem");
    expect(ephemeralSqliteStorage('/var/lib/audit/audit.db', MOUNTINFO)).toBeUndefined();
    expect(ephemeralSqliteStorage('/app/odd dir/audit.db', MOUNTINFO)).toBe(
      'an emptyDir volume at /app/odd dir',
    );
  });

  it('says nothing when the mount table is empty or unreadable', () => {
    expect(ephemeralSqliteStorage('/app/.data/audit.db', '')).toBeUndefined();
    expect(ephemeralSqliteStorage('/app/.data/audit.db', 'garbage\nmore garbage')).toBeUndefined();
  });
});
