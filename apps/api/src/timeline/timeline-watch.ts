import type { Response } from 'express';
import { setTimeout as sleep } from 'node:timers/promises';
import { errorMessage } from '@ngx/kube-runtime';
import { CONTROLPLANE_API_VERSION } from '../http/controlplane-api.js';
import {
  encodeVersion,
  type TimelineFilters,
  type TimelineVersion,
  type TimelineWatchParams,
} from './timeline-params.js';
import type { TimelineReader } from './timeline-reader.js';

/** How often the stores are read again while nothing new came. */
const POLL_MS = 1_000;
/** Records read per store per round; a full round is followed at once by the next. */
const ROUND_LIMIT = 200;
/** A BOOKMARK at least this often while nothing happens, so a client always holds a recent place to resume. */
const BOOKMARK_MS = 10_000;

/**
 * Streams an Nginx's new timeline entries as watch events, one JSON object per line as a Kubernetes watch does:
 * `{"type":"ADDED"|"MODIFIED","object":<TimelineItem>}`, then a `BOOKMARK` whose `metadata.resourceVersion` a
 * client passes back (`resourceVersion=`) to resume after what it saw, and `ERROR` (a Status) if the audit
 * database fails midway. Starts at `params.from` (a list's resourceVersion: nothing committed after that list is
 * missed) or now; ends after `params.timeoutSeconds`, or when the client goes. Waits for a slow client to drain.
 */
export async function streamTimeline(
  reader: TimelineReader,
  filters: TimelineFilters,
  params: TimelineWatchParams,
  response: Response,
): Promise<void> {
  const stop = new AbortController();
  response.on('close', () => stop.abort());
  response.status(200).set({ 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
  response.flushHeaders();

  const deadline = Date.now() + params.timeoutSeconds * 1000;
  let version: TimelineVersion | undefined = params.from;
  let bookmarkedAt = Date.now();
  const send = async (line: object) => {
    if (!response.write(`${JSON.stringify(line)}\n`))
      await new Promise<void>((resolve) => {
        response.once('drain', resolve);
        stop.signal.addEventListener('abort', () => resolve(), { once: true });
      });
  };
  const bookmark = async (at: TimelineVersion) => {
    bookmarkedAt = Date.now();
    await send({
      type: 'BOOKMARK',
      object: {
        apiVersion: CONTROLPLANE_API_VERSION,
        kind: 'TimelineBookmark',
        metadata: { resourceVersion: encodeVersion(at) },
      },
    });
  };
  try {
    version ??= await reader.version();
    while (!stop.signal.aborted && Date.now() < deadline) {
      const { events, version: next } = await reader.since(filters, version, ROUND_LIMIT);
      for (const { type, item } of events) await send({ type, object: item });
      version = next;
      if (events.length > 0 || Date.now() - bookmarkedAt >= BOOKMARK_MS) await bookmark(version);
      if (events.length < ROUND_LIMIT)
        await sleep(POLL_MS, undefined, { signal: stop.signal }).catch(() => {});
    }
  } catch (error) {
    if (!stop.signal.aborted)
      await send({
        type: 'ERROR',
        object: {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: `the audit database could not be read: ${errorMessage(error)}`,
          reason: 'InternalError',
          code: 500,
        },
      }).catch(() => {});
  } finally {
    response.end();
  }
}
