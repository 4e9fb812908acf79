import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { Logger, type INestApplication } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import type { AppConfig } from '../config/app-config.js';
import { isApiPath } from './api-paths.js';
import { warmWeb } from './warm-web.js';

interface NextServer {
  prepare(): Promise<void>;
  close(): Promise<void>;
  getRequestHandler(): (req: IncomingMessage, res: unknown) => Promise<void>;
  getUpgradeHandler(): (req: IncomingMessage, socket: Duplex, head: Buffer) => Promise<void>;
}
type CreateNext = (options: { dev: boolean; dir: string; hostname?: string; port?: number }) => NextServer;

async function loadNext(): Promise<CreateNext> {
  // `next` is CommonJS; depending on the loader its factory is the default export or nested one level deeper.
  const imported = (await import('next')) as unknown as { default: CreateNext | { default: CreateNext } };
  const candidate = imported.default;
  return typeof candidate === 'function' ? candidate : candidate.default;
}

/**
 * Serves the Next.js UI from this process, on the API's own port: requests for API paths go on to NestJS,
 * the rest to Next.js. Registered before Nest's body parsers so Next.js receives untouched request bodies.
 */
export async function mountWeb(app: INestApplication, config: AppConfig): Promise<void> {
  const { mode, dir } = config.web;
  if (mode === 'off') return;
  const dev = mode === 'development';
  if (!dev && !existsSync(join(dir, '.next', 'BUILD_ID'))) {
    throw new Error(
      `the web UI has no production build in ${dir}/.next: run "npm run build" or set WEB_MODE=off`,
    );
  }

  const createNext = await loadNext();
  const nextServer = createNext({ dev, dir, hostname: config.host, port: config.port });
  await nextServer.prepare();
  const handle = nextServer.getRequestHandler();
  if (!dev)
    void warmWeb(handle).then(({ ms, pages }) =>
      Logger.log(
        `web UI warmed in ${Math.round(ms)} ms: ${pages.map((p) => `${p.path} ${p.status}`).join(', ')}`,
        'Web',
      ),
    );

  app.use((req: Request, res: Response, next: NextFunction) => {
    if (isApiPath(req.path)) return next();
    handle(req, res).catch(next);
  });

  if (dev) {
    const upgrade = nextServer.getUpgradeHandler();
    (app.getHttpServer() as Server).on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      if (req.url?.startsWith('/_next/')) void upgrade(req, socket, head);
    });
  }
  (app.getHttpServer() as Server).on('close', () => void nextServer.close());
}
