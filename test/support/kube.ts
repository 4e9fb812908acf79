import { ApiException, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { KUBECONFIG_PATH } from './paths.js';

/** A client for the local control plane, authenticated as its admin. */
export function localCluster() {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(KUBECONFIG_PATH);
  return { kubeConfig, core: kubeConfig.makeApiClient(CoreV1Api) };
}

export function isNotFound(error: unknown): boolean {
  return error instanceof ApiException && error.code === 404;
}
