import type { Nginx } from '@ngx/nginx-api';
import { StatusError } from './api-client';

/** What a newer read of the object says about a write that was refused with 409. */
export interface Reread {
  /** The object's resourceVersion now. */
  version: string;
  /** True when nothing the write was based on changed (only the controller's status, say). */
  unchanged: boolean;
}

/**
 * Runs `write` conditioned on `version`. A 409 alone does not mean someone else changed what the user edited: the
 * controller's status writes move the resourceVersion too, many times a second during a rollout. So on a 409 the
 * object is read again (`reread`): when nothing the write was based on changed, the write is sent again on the new
 * version, at most `attempts` times in all; when something did, the 409 is thrown and nothing was written. Any other
 * failure is thrown as it came.
 */
export async function writeOnVersion<T>(
  version: string,
  write: (version: string) => Promise<T>,
  reread: () => Promise<Reread>,
  attempts = 3,
): Promise<T> {
  let current = version;
  for (let attempt = 1; ; attempt++) {
    try {
      return await write(current);
    } catch (error) {
      if (!(error instanceof StatusError) || error.code !== 409 || attempt >= attempts) throw error;
      const now = await reread();
      if (!now.unchanged) throw error;
      current = now.version;
    }
  }
}

const comparable = (nginx: Nginx) =>
  JSON.stringify([
    nginx.spec ?? {},
    nginx.metadata.labels ?? {},
    nginx.metadata.annotations ?? {},
    nginx.metadata.deletionTimestamp ?? null,
  ]);

/**
 * Whether a user's edit made from `read` still means the same against `now`: the spec, labels and annotations are
 * as they were and the object is not being deleted. Status, resourceVersion and managedFields may have moved.
 */
export const sameIntent = (read: Nginx, now: Nginx): boolean => comparable(read) === comparable(now);
