import { Global, Module } from '@nestjs/common';
import { KubeConfig } from '@kubernetes/client-node';
import { appConfig, type AppConfig } from '../config/app-config.js';

/** Loads the kubeconfig once (file from config, else client-node's defaults) and shares it. */
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
  ],
  exports: [KubeConfig],
})
export class KubeModule {}
