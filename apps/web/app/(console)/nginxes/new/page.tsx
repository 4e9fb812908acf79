import type { Metadata } from 'next';
import { Suspense } from 'react';
import { NginxCreateForm } from '@/features/create/nginx-create-form';
import { Skeleton } from '@/components/ui/skeleton';

export const metadata: Metadata = { title: 'Create an Nginx' };

export default function NewNginxPage() {
  return (
    <Suspense fallback={<Skeleton rows={6} />}>
      <NginxCreateForm />
    </Suspense>
  );
}
