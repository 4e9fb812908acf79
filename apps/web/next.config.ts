import type { NextConfig } from 'next';
import { fileURLToPath } from 'node:url';

const config: NextConfig = {
  // Served by the API process (see apps/api/src/web/mount-web.ts); the workspace root holds the lockfile.
  turbopack: { root: fileURLToPath(new URL('../..', import.meta.url)) },
  poweredByHeader: false,
  reactStrictMode: true,
};

export default config;
