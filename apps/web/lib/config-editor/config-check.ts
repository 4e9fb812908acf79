'use client';

import { useEffect, useMemo, useState } from 'react';
import { errorMessage, StatusError, type ApiClient } from '@/lib/api/api-client';
import {
  configProblemsOfCauses,
  localConfigProblems,
  type ConfigProblem,
} from '@/lib/config-editor/config-problems';

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
  text: string;
  problems: ConfigProblem[];
  error?: string;
}

/**
 * Checks a draft spec.config as it is typed: at once with the same syntax check the API runs, then (400 ms after
 * the last keystroke, and only for text that passed it) with the server, as a dry-run merge patch of the Nginx
 * that stores nothing. Answers for an older text are ignored, so `problems` always belong to `text`.
 */
export function useConfigCheck(
  api: ApiClient,
  namespace: string,
  name: string,
  text: string,
  enabled = true,
): ConfigCheck {
  const local = useMemo(() => localConfigProblems(text), [text]);
  const [answer, setAnswer] = useState<ServerAnswer | undefined>();

  useEffect(() => {
    if (!enabled || local.length > 0) return;
    let current = true;
    const timer = setTimeout(() => {
      api
        .patchNginx(namespace, name, { spec: { config: text || null } }, { dryRun: true })
        .then(
          () => ({ text, problems: [] }),
          (error: unknown): ServerAnswer => {
            const problems = error instanceof StatusError ? configProblemsOfCauses(error.causes) : [];
            return problems.length ? { text, problems } : { text, problems, error: errorMessage(error) };
          },
        )
        .then((result) => {
          if (current) setAnswer(result);
        });
    }, DEBOUNCE_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [api, namespace, name, text, enabled, local]);

  if (local.length > 0) return { problems: local, checking: false };
  if (!enabled) return { problems: [], checking: false };
  if (answer?.text !== text) return { problems: [], checking: true };
  return { problems: answer.problems, checking: false, error: answer.error };
}
