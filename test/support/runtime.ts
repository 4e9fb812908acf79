import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient, type KubeClientOptions } from '../../libs/kube-runtime/src/index.js';
import { KUBECONFIG_PATH } from './paths.js';

/** A kube-runtime client for the local control plane. */
export function runtimeClient(options: KubeClientOptions = {}): KubeClient {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(KUBECONFIG_PATH);
  return new KubeClient(kubeConfig, { qps: 200, burst: 400, ...options });
}
