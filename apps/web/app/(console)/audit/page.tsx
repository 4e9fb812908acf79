import type { Metadata } from 'next';
import { Suspense } from 'react';
import { AuditView } from '@/features/audit/audit-view';
import { Skeleton } from '@/components/ui/skeleton';

export const metadata: Metadata = { title: 'Audit history' };

export default function AuditPage() {
  return (
    <Suspense fallback={<Skeleton rows={8} />}>
      <AuditView />
    </Suspense>
  );
}
