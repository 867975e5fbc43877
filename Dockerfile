# syntax=docker/dockerfile:1
# Confab's container image (docs/guides/deploying.md#a-container).
#   docker build -t confab .
#   docker run -p 3000:3000 -v confab-data:/data confab
# Two stages: the first installs everything and builds dist/, then packs the package exactly as npm would
# publish it (package.json "files"); the second installs that package with the production dependencies only,
# as test/deploy/container-contract.test.ts does on this machine, where no container can run.

# One Node 24 LTS release, pinned: a rebuild gets the same runtime until this line changes.
ARG NODE_IMAGE=node:24.22.3-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
# The dependencies first, in a layer of their own: a change to src/ does not install them again.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json ./
COPY src src
COPY drizzle drizzle
COPY README.md LICENSE ./
RUN npm run build \
 && npm pack --ignore-scripts --pack-destination /tmp \
 && mkdir /app \
 && tar -xzf /tmp/confab-*.tgz -C /app --strip-components=1 \
 && cp package-lock.json /app/

FROM ${NODE_IMAGE} AS runtime
# Inside a container Confab must listen on every interface (its default, 127.0.0.1, answers no one outside
# it), and keep its database in the volume (its default, ./data, is in the read-only application folder).
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATABASE_URL=/data/confab.db \
    SHUTDOWN_DELAY_SECONDS=5
WORKDIR /app
# The application belongs to root and is read-only to the user Confab runs as.
COPY --from=build /app /app
RUN npm ci --omit=dev --no-audit --no-fund \
 && npm cache clean --force \
 && ln -s /app/dist/cli.js /usr/local/bin/confab \
 && mkdir /data \
 && chown node:node /data
# The node image's unprivileged user (uid 1000).
USER node
VOLUME /data
EXPOSE 3000
# node, not curl: the slim image has no curl. /readyz answers 503 while the database does not answer and
# from the first moment of a shutdown.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
STOPSIGNAL SIGTERM
# node itself, not npm: SIGTERM reaches Confab, which stops gracefully (SHUTDOWN_DELAY_SECONDS, then exit 0).
CMD ["node", "dist/main.js"]
