import type { ConfigProblem } from '@/features/config-editor/config-problems';

/**
 * The problems of a config, each with its line, as plain text under the editor: readable without hovering a
 * diagnostic, and announced as they change.
 */
export function ConfigProblemList({ problems, id }: { problems: readonly ConfigProblem[]; id?: string }) {
  return (
    <div id={id} aria-live="polite">
      {problems.length > 0 && (
        <ul className="config-problems">
          {problems.map((problem) => (
            <li
              key={`${problem.line}-${problem.message}`}
              data-testid="config-problem"
              data-line={problem.line}
            >
              <span className="config-problem-line">Line {problem.line}:</span> {problem.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
