'use client';

import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { errorMessage, StatusError, type ApiClient } from '@/lib/api/api-client';
import {
  configProblemsOfCauses,
  localConfigProblems,
  type ConfigProblem,
} from '@/features/config-editor/config-problems';
import { queryKeys } from '@/lib/query/query-keys';
import { useSettled } from '@/lib/ui/use-settled';

/** What is known of a draft config: its problems, whether a check is still under way, and why one failed. */
export interface ConfigCheck {
  /** Problems at their lines: the local syntax check's, else the server's dry run's. */
  problems: ConfigProblem[];
  /** True while the server has not yet answered for this very text. */
  checking: boolean;
  /** A refusal that is not about the config (403, network…): saving may still be tried. */
  error?: string;
}

const DEBOUNCE_MS = 400;

interface ServerAnswer {
  problems: ConfigProblem[];
  error?: string;
}

/** The server's answer to a dry run of `config`, in problems at their lines or, when it is not about them, words. */
export function serverAnswerOf(error: unknown): ServerAnswer {
  const problems = error instanceof StatusError ? configProblemsOfCauses(error.causes) : [];
  return problems.length ? { problems } : { problems, error: errorMessage(error) };
}

/**
 * Checks a draft spec.config as it is typed: at once with the same syntax check the API runs, then (400 ms after
 * the last keystroke, and only for text that passed it) with the server, as a dry-run merge patch of the Nginx
 * that stores nothing. Each answer is kept for its own text, so `problems` always belong to `text`.
 */
export function useConfigCheck(
  api: ApiClient,
  namespace: string,
  name: string,
  text: string,
  enabled = true,
): ConfigCheck {
  const local = useMemo(() => localConfigProblems(text), [text]);
  const settled = useSettled(text, DEBOUNCE_MS);
  const asked = enabled && local.length === 0 && settled === text;
  const answer = useQuery({
    queryKey: queryKeys.configCheck(namespace, name, asked ? text : undefined),
    // A dry run stores nothing: it is a read of what the server would say.
    queryFn: () =>
      api
        .patchNginx(namespace, name, { spec: { config: text || null } }, { dryRun: true })
        .then((): ServerAnswer => ({ problems: [] }), serverAnswerOf),
    enabled: asked,
  }).data;

  if (local.length > 0) return { problems: local, checking: false };
  if (!enabled) return { problems: [], checking: false };
  if (!asked || !answer) return { problems: [], checking: true };
  return { problems: answer.problems, checking: false, error: answer.error };
}
