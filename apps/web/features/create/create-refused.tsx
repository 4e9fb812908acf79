import Link from 'next/link';
import { EmptyState } from '@/components/ui/empty-state';
import { ReadOnlyNote } from '@/components/ui/read-only-note';

/** In place of the create form for someone who may not create: why, and the way back. */
export function CreateRefused({ reason }: { reason: string }) {
  return (
    <div className="panel">
      <EmptyState
        title="Your role cannot create Nginxes"
        action={
          <>
            <ReadOnlyNote reason={reason} />
            <Link className="button" href="/">
              Back to the list
            </Link>
          </>
        }
      />
    </div>
  );
}
