import { describe, expect, it } from 'vitest';
import type { Nginx, NginxBlueGreenStatus, NginxBlueGreenStrategy } from '@ngx/nginx-api';
import { blueGreenViewOf } from './bluegreen-view';

const run = (name: string, templateName: string) => ({
  name,
  templateName,
  step: 0,
  phase: 'Successful' as const,
  startedAt: '2026-11-28T10:00:00Z',
  measurements: [],
});
const nginx = (
  blueGreen: NginxBlueGreenStatus | undefined,
  { type = 'BlueGreen', strategy = {}, updateRevision = 'green' } = {} as {
    type?: string;
    strategy?: NginxBlueGreenStrategy;
    updateRevision?: string;
  },
): Nginx => ({
  apiVersion: 'mycompany.com/v1',
  kind: 'Nginx',
  metadata: { name: 'web', namespace: 'ns' },
  spec: { replicas: 3, strategy: { type: type as 'BlueGreen', blueGreen: strategy } },
  status: { updateRevision, currentRevision: 'blue', ...(blueGreen ? { blueGreen } : {}) },
});
const previewing: NginxBlueGreenStatus = { revision: 'green', activeRevision: 'blue', phase: 'Previewing' };

describe('blueGreenViewOf', () => {
  it('is undefined for other strategies, without status.blueGreen, and for an older revision', () => {
    expect(blueGreenViewOf(nginx(previewing, { type: 'Canary' }))).toBeUndefined();
    expect(blueGreenViewOf(nginx(undefined))).toBeUndefined();
    expect(blueGreenViewOf(nginx(previewing, { updateRevision: 'third' }))).toBeUndefined();
  });

  it('previews the new revision beside the active one, through <name>-active and <name>-preview', () => {
    expect(blueGreenViewOf(nginx({ ...previewing, previewReadyAt: '2026-11-28T10:00:00Z' }))).toMatchObject({
      revision: 'green',
      activeRevision: 'blue',
      previewRevision: 'green',
      phase: 'Previewing',
      activeService: 'web-active',
      previewService: 'web-preview',
      previewReadyAt: '2026-11-28T10:00:00Z',
      canPromote: true,
      canAbort: true,
    });
  });

  it('names the Services the strategy renames', () => {
    const view = blueGreenViewOf(
      nginx(previewing, { strategy: { activeService: 'prod', previewService: 'qa' } }),
    );
    expect(view).toMatchObject({ activeService: 'prod', previewService: 'qa' });
  });

  it('promotes a paused preview; once switched there is no preview, and abort still switches back', () => {
    expect(blueGreenViewOf(nginx({ ...previewing, phase: 'Paused' }))).toMatchObject({
      canPromote: true,
      canAbort: true,
    });
    const switched = blueGreenViewOf(
      nginx({
        revision: 'green',
        activeRevision: 'green',
        phase: 'Promoting',
        promotedAt: '2026-11-28T10:01:00Z',
      }),
    );
    expect(switched).toMatchObject({
      previewRevision: undefined,
      promotedAt: '2026-11-28T10:01:00Z',
      canPromote: false,
      canAbort: true,
    });
  });

  it('offers neither action once promoted or aborted, and names the run an abort names', () => {
    expect(
      blueGreenViewOf(nginx({ revision: 'green', activeRevision: 'green', phase: 'Promoted' })),
    ).toMatchObject({ canPromote: false, canAbort: false });
    const aborted = blueGreenViewOf(
      nginx({ ...previewing, phase: 'Aborted', abortedBy: 'green-pre-errors', message: 'Analysis failed.' }),
    );
    expect(aborted).toMatchObject({
      canPromote: false,
      canAbort: false,
      abortedBy: 'green-pre-errors',
      message: 'Analysis failed.',
    });
  });

  it('tells the pre-promotion runs from the post-promotion ones by their names', () => {
    const pre = run('green-pre-errors', 'errors');
    const post = run('green-post-latency', 'latency');
    const view = blueGreenViewOf(nginx({ ...previewing, analysisRuns: [pre, post] }))!;
    expect(view.preRuns).toEqual([pre]);
    expect(view.postRuns).toEqual([post]);
  });
});
