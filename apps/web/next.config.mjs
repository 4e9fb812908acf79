// JavaScript, not TypeScript: the production server loads it at start, and the image holds no TypeScript.
import { fileURLToPath } from 'node:url';

/** @type {import('next').NextConfig} */
const config = {
  // Served by the API process (see apps/api/src/web/mount-web.ts); the workspace root holds the lockfile.
  turbopack: { root: fileURLToPath(new URL('../..', import.meta.url)) },
  poweredByHeader: false,
  reactStrictMode: true,
};

export default config;
