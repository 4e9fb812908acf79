import type { YamlProblem } from '@/features/yaml-edit/yaml-lines';

/**
 * What is wrong with the manifest, each at its line (`data-testid="yaml-cause"`, `data-line`), with a button
 * that puts the caret on that line.
 */
export function YamlProblemList({
  id,
  problems,
  onGoTo,
}: {
  id: string;
  problems: readonly YamlProblem[];
  onGoTo: (line: number) => void;
}) {
  return (
    <div id={id} aria-live="polite">
      {problems.length > 0 && (
        <div className="alert yaml-causes" role="alert">
          <strong>
            {problems.length === 1 ? 'One problem' : `${problems.length} problems`}; nothing was changed.
          </strong>
          <ul>
            {problems.map((problem, index) => (
              <li key={index} data-testid="yaml-cause" data-line={problem.line}>
                <button type="button" className="link" onClick={() => onGoTo(problem.line)}>
                  Line {problem.line}
                </button>
                {problem.field && (
                  <>
                    {' '}
                    <code>{problem.field}</code>
                  </>
                )}
                : {problem.message}
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}
