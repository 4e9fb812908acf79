import { namespaceError } from '@ngx/nginx-api';

/** A Service kube-apiserver calls, as an admission webhook's clientConfig names it. */
export interface AdmissionWebhookService {
  namespace: string;
  name: string;
  port: number;
}

const SERVICE_REFERENCE = /^([^/:\s]+)\/([^/:\s]+)(?::(\d{1,5}))?$/;

/** `namespace/name` or `namespace/name:port` (443 when not given); throws saying what is wrong. */
export function serviceReference(value: string): AdmissionWebhookService {
  const match = SERVICE_REFERENCE.exec(value);
  const port = match?.[3] === undefined ? 443 : Number(match[3]);
  const problem = match ? (namespaceError(match[1]!) ?? namespaceError(match[2]!)) : undefined;
  if (!match || problem || port < 1 || port > 65535)
    throw new Error(
      `must be namespace/name or namespace/name:port (got "${value}")${problem ? `: ${problem}` : ''}`,
    );
  return { namespace: match[1]!, name: match[2]!, port };
}
