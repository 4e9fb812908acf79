import type { Metadata } from 'next';
import { Suspense } from 'react';
import { NginxList } from '@/features/list/nginx-list';
import { Skeleton } from '@/components/ui/skeleton';

export const metadata: Metadata = { title: { absolute: 'Nginxes · Nginx control plane' } };

export default function NginxesPage() {
  return (
    <Suspense fallback={<Skeleton rows={8} />}>
      <NginxList />
    </Suspense>
  );
}
