'use client';

import type { Nginx } from '@ngx/nginx-api';
import { useMutation, type UseMutationOptions } from '@tanstack/react-query';
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
import { useNginxMutation } from '@/lib/query/use-nginx-mutation';

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

  // The replace of `text`, as a dry run (review) or for real (apply); a failure is placed before either is idle
  // again (a 409 reads the object now first).
  const replace = (dryRun: boolean): UseMutationOptions<Nginx, Error, string> => ({
    mutationFn: (manifest) =>
      writeOnVersion(
        base.metadata.resourceVersion ?? '',
        (version) => api.replaceNginx(namespace, name, withResourceVersion(manifest, version), { dryRun }),
        async () => {
          const now = await api.getNginx(namespace, name);
          return { version: now.metadata.resourceVersion ?? '', unchanged: sameIntent(base, now) };
        },
      ),
    onError: async (e, manifest) => {
      if (e instanceof StatusError && e.code === 409) {
        const latest = await api.getNginx(namespace, name).catch(() => undefined);
        if (latest) setConflict({ latest, lines: lineDiff(comparableText(base), comparableText(latest)) });
        else setError(e.message);
      } else if (e instanceof StatusError && e.code === 403) setError(`Not allowed: ${e.message}`);
      else if (e instanceof StatusError && e.causes.length > 0)
        setProblems(causesAtLines(manifest, e.causes));
      else setError(errorMessage(e));
    },
  });
  // A dry run changes nothing, so it refreshes nothing either.
  const { mutateAsync: dryRunReplace, isPending: reviewing } = useMutation(replace(true));
  const { mutateAsync: store, isPending: applying } = useNginxMutation({ namespace, name }, replace(false));
  const busy = reviewing ? 'review' : applying ? 'apply' : undefined;

  const send = useCallback(
    async (dryRun: boolean): Promise<Nginx | undefined> => {
      setDiff(undefined);
      setError(undefined);
      setConflict(undefined);
      const local = yamlProblems(text);
      setProblems(local);
      if (local.length > 0) return undefined;
      return (dryRun ? dryRunReplace : store)(text).catch(() => undefined);
    },
    [dryRunReplace, store, text],
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
