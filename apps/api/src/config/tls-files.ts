import { existsSync } from 'node:fs';
import type { AppEnv } from './app-env.js';
import { ConfigError } from './config-error.js';
import { LOCAL_CLUSTER, localClusterFile } from './local-cluster.js';

/** Certificate and key to answer TLS with. */
export interface TlsFiles {
  certFile: string;
  keyFile: string;
}

/**
 * TLS_CERT_FILE and TLS_KEY_FILE (both or neither), else the local cluster's certificate when it exists; TLS=false
 * for none.
 */
export function tlsFiles(env: Pick<AppEnv, 'TLS_CERT_FILE' | 'TLS_KEY_FILE' | 'TLS'>, cwd: string) {
  const { TLS_CERT_FILE: certFile, TLS_KEY_FILE: keyFile } = env;
  if (certFile || keyFile) {
    if (!certFile || !keyFile) throw new ConfigError('TLS_CERT_FILE and TLS_KEY_FILE must be set together');
    for (const file of [certFile, keyFile])
      if (!existsSync(file)) throw new ConfigError(`TLS file does not exist: ${file}`);
    return { certFile, keyFile };
  }
  if (env.TLS === 'false') return undefined;
  const local = {
    certFile: localClusterFile(cwd, LOCAL_CLUSTER.tlsCert),
    keyFile: localClusterFile(cwd, LOCAL_CLUSTER.tlsKey),
  };
  return local.certFile && local.keyFile ? { certFile: local.certFile, keyFile: local.keyFile } : undefined;
}
