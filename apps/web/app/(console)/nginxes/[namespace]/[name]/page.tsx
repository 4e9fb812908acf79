import type { Metadata } from 'next';
import { NginxDetail } from '@/features/detail/nginx-detail';

interface Props {
  params: Promise<{ namespace: string; name: string }>;
}

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { namespace, name } = await params;
  return { title: `${decodeURIComponent(name)} (${decodeURIComponent(namespace)})` };
}

export default async function NginxPage({ params }: Props) {
  const { namespace, name } = await params;
  return <NginxDetail namespace={decodeURIComponent(namespace)} name={decodeURIComponent(name)} />;
}
