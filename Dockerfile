# syntax=docker/dockerfile:1
# The app (API + controller + web UI on one port) as an image for deploy/app/deployment.yaml:
#   docker build -t nginx-control-plane:latest .
# Without Docker: `npm run image` (tools/image/build.sh: buildah, on a base made from Debian's packages).
ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
# better-sqlite3 compiles its native addon when no prebuilt binary can be fetched.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
# package.json's allowScripts (which lets better-sqlite3's install script run) is read by npm 11.16+; the
# Node 20 image ships npm 10.
RUN npm install -g npm@11 --no-fund --no-audit
WORKDIR /app
# node-gyp's nodedir as npm_package_config_node_gyp_nodedir: npm 11 warns about an npm_config_nodedir.
ENV NX_NO_CLOUD=true NX_DAEMON=false NEXT_TELEMETRY_DISABLED=1 CHECKPOINT_DISABLE=1 \
  npm_package_config_node_gyp_nodedir=/usr/local
COPY package.json package-lock.json ./
COPY apps/api/package.json apps/api/
COPY apps/web/package.json apps/web/
COPY libs/kube-runtime/package.json libs/kube-runtime/
COPY libs/nginx-api/package.json libs/nginx-api/
# `npm ci`: exactly what the lockfile lists (every platform's optional binaries included).
RUN npm ci --no-fund --no-audit
COPY . .
# The build of apps/api depends on its Prisma clients (the api:generate target runs tools/db/generate.sh).
RUN npx --no-install nx run-many -t build --outputStyle=static
# Production dependencies only (the Prisma CLI that applies migrations at start is one of apps/api's), without
# optional ones: Next.js's SWC compiler and sharp (the server compiles nothing and the UI has no next/image), and
# TypeScript (an optional peer of Prisma's). better-sqlite3 without its sources and objects, only its addon. No build
# caches, Next.js's generated route types and traces, no source maps (140 MB in node_modules, Next.js's most), and
# no declarations outside node_modules.
RUN npm prune --omit=dev --omit=optional --no-fund --no-audit \
  && mv node_modules/better-sqlite3/build/Release/better_sqlite3.node . \
  && rm -rf node_modules/better-sqlite3/build node_modules/better-sqlite3/deps node_modules/better-sqlite3/src \
  && mkdir -p node_modules/better-sqlite3/build/Release && mv better_sqlite3.node node_modules/better-sqlite3/build/Release/ \
  && rm -rf node_modules/.cache apps/web/.next/cache apps/web/.next/types apps/web/.next/diagnostics \
    apps/web/.next/trace apps/web/.next/trace-build \
  && find apps libs -name node_modules -prune -o -type f \( -name '*.map' -o -name '*.d.ts' -o -name '*.tsbuildinfo' \) \
    -exec rm -f {} + \
  && find node_modules -type f -name '*.map' -delete
# What the app writes when run without the Deployment's emptyDirs (docker run): .data (the generated admin token;
# the app user's only) and Next.js's cache. Made here and copied with the app user as owner, so the runtime stage
# runs nothing; .data inside a folder, for COPY to keep its mode.
RUN mkdir -p /writable/.data /writable-next-cache && chmod 700 /writable/.data

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production NEXT_TELEMETRY_DISABLED=1 CHECKPOINT_DISABLE=1 HOST=0.0.0.0 PORT=3000
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/libs/kube-runtime/package.json libs/kube-runtime/
COPY --from=build /app/libs/kube-runtime/dist libs/kube-runtime/dist
COPY --from=build /app/libs/nginx-api/package.json libs/nginx-api/
COPY --from=build /app/libs/nginx-api/dist libs/nginx-api/dist
COPY --from=build /app/apps/api/package.json apps/api/
COPY --from=build /app/apps/api/dist apps/api/dist
COPY --from=build /app/apps/api/generated apps/api/generated
COPY --from=build /app/apps/web/package.json /app/apps/web/next.config.mjs apps/web/
COPY --from=build /app/apps/web/.next apps/web/.next
# Migrations: tools/db/migrate.sh runs `prisma migrate deploy` with apps/api/dist/config/prisma-config.js.
COPY --from=build /app/prisma prisma
COPY --from=build /app/tools/db/migrate.sh tools/db/
COPY --from=build --chown=node:node /writable/ ./
COPY --from=build --chown=node:node /writable-next-cache apps/web/.next/cache
USER node
EXPOSE 3000
CMD ["sh", "-c", "bash tools/db/migrate.sh && exec node apps/api/dist/main.js"]
