# syntax=docker/dockerfile:1
# The app (API + controller + web UI on one port) as an image for deploy/app/deployment.yaml:
#   docker build -t nginx-control-plane:latest .
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
# Not `npm ci`: the lockfile cannot list other platforms' optional binaries (see tools/setup.sh).
RUN npm install --no-fund --no-audit
COPY . .
# The build of apps/api depends on its Prisma clients (the api:generate target runs tools/db/generate.sh).
RUN npx --no-install nx run-many -t build --outputStyle=static
# Production dependencies only, but keep the Prisma CLI (a devDependency): the container applies migrations with
# it at start. Moving it to dependencies in this copy of package.json is what makes `npm prune` keep it.
RUN npm pkg set "dependencies.prisma=$(npm pkg get devDependencies.prisma | tr -d '"')" \
  && npm pkg delete devDependencies.prisma \
  && npm prune --omit=dev --no-fund --no-audit \
  && rm -rf apps/web/.next/cache

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
COPY --from=build /app/apps/web/package.json /app/apps/web/next.config.ts apps/web/
COPY --from=build /app/apps/web/.next apps/web/.next
# Migrations: tools/db/migrate.sh runs `prisma migrate deploy` with prisma.config.ts, which imports the last two.
COPY --from=build /app/prisma.config.ts ./
COPY --from=build /app/prisma prisma
COPY --from=build /app/tools/db/migrate.sh /app/tools/db/migration-adapter.ts tools/db/
COPY --from=build /app/apps/api/src/config/database-target.ts apps/api/src/config/
# Writable by the app user when run without the Deployment's emptyDirs (docker run); .data (the generated admin
# token) by the app user only.
RUN mkdir -p .data apps/web/.next/cache && chown node:node .data apps/web/.next/cache && chmod 700 .data
USER node
EXPOSE 3000
CMD ["sh", "-c", "bash tools/db/migrate.sh && exec node apps/api/dist/main.js"]
