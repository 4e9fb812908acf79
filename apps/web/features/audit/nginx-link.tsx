import Link from 'next/link';
import { detailHref } from '@/lib/nginx/nginx-view';

/** `namespace/name`, linking to the Nginx's detail page. */
export function NginxLink({ namespace, name }: { namespace: string; name: string }) {
  return (
    <Link href={detailHref(namespace, name)} prefetch={false}>
      {namespace}/{name}
    </Link>
  );
}
