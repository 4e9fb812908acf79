'use client';

import type { Nginx } from '@ngx/nginx-api';
import { useCallback, useState } from 'react';
import { errorMessage, StatusError, type ApiClient } from '@/lib/api/api-client';
import {
  comparableText,
  lineDiff,
  manifestText,
  withResourceVersion,
  type DiffLine,
} from '@/lib/nginx/manifest-diff';
import { causesAtLines, yamlProblems, type YamlProblem } from '@/features/yaml-edit/yaml-lines';
import { sameIntent, writeOnVersion } from '@/lib/api/conditional-write';

/** What happened between reading the Nginx and a refused write: the object now, and its diff from the one read. */
export interface YamlConflict {
  latest: Nginx;
  lines: DiffLine[];
}

/** The state of one Edit YAML session, and what can be done in it. */
export interface YamlEdit {
  /** The object as read (when the editor opened, or at "Load latest"): writes are conditioned on its version. */
  base: Nginx;
  text: string;
  /** The person's text from before "Load latest", so no edit is lost. */
  previousEdit?: string;
  busy?: 'review' | 'apply';
  /** Local YAML errors or the server's causes, at lines of `text` as it was checked. */
  problems: YamlProblem[];
  /** The dry run's result against `base`, until the text changes again. */
  diff?: DiffLine[];
  conflict?: YamlConflict;
  error?: string;
  setText: (text: string) => void;
  /** Checks locally, then asks the server for a dry run of the replace. */
  review: () => Promise<void>;
  /** Replaces the object for real; true when it was stored. */
  apply: () => Promise<boolean>;
  /** Starts again from the object as it is now, keeping the person's text in `previousEdit`. */
  loadLatest: () => void;
}

/**
 * Edit YAML of one Nginx: the manifest as text (no status, no managedFields), a dry run that shows what would
 * change, and a replace conditioned on the resourceVersion read whatever the text says. A 409 fetches the
 * object and shows how it changed in between, overwriting nothing; a 400/422 places its causes at the lines of
 * the fields they name; anything else (403 included) is kept as a message.
 */
export function useYamlEdit(api: ApiClient, initial: Nginx): YamlEdit {
  const [base, setBase] = useState(initial);
  const [text, setTextState] = useState(() => manifestText(initial));
  const [previousEdit, setPreviousEdit] = useState<string | undefined>();
  const [busy, setBusy] = useState<'review' | 'apply' | undefined>();
  const [problems, setProblems] = useState<YamlProblem[]>([]);
  const [diff, setDiff] = useState<DiffLine[] | undefined>();
  const [conflict, setConflict] = useState<YamlConflict | undefined>();
  const [error, setError] = useState<string | undefined>();
  const namespace = base.metadata.namespace!;
  const name = base.metadata.name!;

  const setText = useCallback((next: string) => {
    setTextState(next);
    setDiff(undefined);
  }, []);

  const send = useCallback(
    async (dryRun: boolean): Promise<Nginx | undefined> => {
      setDiff(undefined);
      setError(undefined);
      setConflict(undefined);
      const local = yamlProblems(text);
      setProblems(local);
      if (local.length > 0) return undefined;
      setBusy(dryRun ? 'review' : 'apply');
      try {
        return await writeOnVersion(
          base.metadata.resourceVersion ?? '',
          (version) => api.replaceNginx(namespace, name, withResourceVersion(text, version), { dryRun }),
          async () => {
            const now = await api.getNginx(namespace, name);
            return { version: now.metadata.resourceVersion ?? '', unchanged: sameIntent(base, now) };
          },
        );
      } catch (e) {
        if (e instanceof StatusError && e.code === 409) {
          const latest = await api.getNginx(namespace, name).catch(() => undefined);
          if (latest) setConflict({ latest, lines: lineDiff(comparableText(base), comparableText(latest)) });
          else setError(e.message);
        } else if (e instanceof StatusError && e.code === 403) setError(`Not allowed: ${e.message}`);
        else if (e instanceof StatusError && e.causes.length > 0) setProblems(causesAtLines(text, e.causes));
        else setError(errorMessage(e));
        return undefined;
      } finally {
        setBusy(undefined);
      }
    },
    [api, base, namespace, name, text],
  );

  const review = useCallback(async () => {
    const result = await send(true);
    if (result) setDiff(lineDiff(comparableText(base), comparableText(result)));
  }, [send, base]);

  const apply = useCallback(async () => (await send(false)) !== undefined, [send]);

  const loadLatest = useCallback(() => {
    if (!conflict) return;
    setPreviousEdit(text);
    setBase(conflict.latest);
    setTextState(manifestText(conflict.latest));
    setConflict(undefined);
    setProblems([]);
    setDiff(undefined);
  }, [conflict, text]);

  return {
    base,
    text,
    previousEdit,
    busy,
    problems,
    diff,
    conflict,
    error,
    setText,
    review,
    apply,
    loadLatest,
  };
}
