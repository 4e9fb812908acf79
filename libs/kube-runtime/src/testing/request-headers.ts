/**
 * The headers KubeClient sends with every request, whichever transport carries it, for a kubeconfig user whose
 * token is `token`; and those it adds for a JSON body. The transport specs assert both against what their test
 * server received.
 */
export function kubeRequestHeaders(token: string): Record<string, string> {
  return {
    authorization: `Bearer ${token}`,
    accept: 'application/json',
    'user-agent': 'nginx-control-plane',
  };
}

export function jsonBodyHeaders(json: string): Record<string, string> {
  return { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(json)) };
}
