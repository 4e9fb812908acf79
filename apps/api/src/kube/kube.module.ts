import { Global, Inject, Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import { KubeClient } from '@ngx/kube-runtime';
import { KubeConfig } from '@ngx/kube-runtime/kubeconfig';
import { Registry } from 'prom-client';
import { appConfig, type AppConfig } from '../config/app-config.js';
import { prometheusRestClientMetrics } from '../metrics/rest-client-metrics.js';
import { kubeClientSpans } from '../tracing/kube-client-spans.js';
import { ClusterInformers } from './cluster-informers.js';
import { OwnEvents } from './own-events.js';

/** Closes the shared client's connection pool when the app stops. */
@Injectable()
class KubeClientCloser implements OnApplicationShutdown {
  constructor(@Inject(KubeClient) private readonly client: KubeClient) {}

  onApplicationShutdown(): void {
    this.client.close();
  }
}

/**
 * The kubeconfig (file from config, else client-node's defaults) and the one KubeClient every part of the app
 * shares, so the QPS/burst limit covers all requests of this process.
 */
@Global()
@Module({
  providers: [
    {
      provide: KubeConfig,
      inject: [appConfig.KEY],
      useFactory: (config: AppConfig) => {
        const kubeConfig = new KubeConfig();
        if (config.kubeconfigPath) kubeConfig.loadFromFile(config.kubeconfigPath);
        else kubeConfig.loadFromDefault();
        return kubeConfig;
      },
    },
    {
      provide: KubeClient,
      inject: [KubeConfig, appConfig.KEY, Registry],
      useFactory: (kubeConfig: KubeConfig, config: AppConfig, registry: Registry) =>
        new KubeClient(kubeConfig, {
          qps: config.kube.qps,
          burst: config.kube.burst,
          requestTimeoutMs: config.kube.requestTimeoutMs,
          http2: config.kube.http2,
          userAgent: 'nginx-control-plane',
          metrics: prometheusRestClientMetrics(registry),
          ...(config.otlpEndpoint === undefined ? {} : { tracing: kubeClientSpans() }),
        }),
    },
    KubeClientCloser,
    ClusterInformers,
    OwnEvents,
  ],
  exports: [KubeConfig, KubeClient, ClusterInformers, OwnEvents],
})
export class KubeModule {}
