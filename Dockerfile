# One image per service of the catalog (deploy/catalog/services.json), plus `ops` for the
# one-shot commands (init, demo). Built from the repository root:
#
#   docker build --build-arg SERVICE=payments -t merchant-payments/payments .
#   docker build --target ops -t merchant-payments/ops .
#
# Stages: `manifests` (package.json without its scripts), `dependencies` (npm ci, rebuilt only
# when the dependencies or the lockfile change), `production-dependencies`
# (the same tree without dev dependencies), `build` (Nx builds the JavaScript once for every image
# and stages each image's files), then a small runtime per image. Every image builds the same
# `build` stage, so after the first image the others reuse its layers. The runtime images carry
# the built JavaScript of their app and its libraries, and the production dependencies, and run
# as the unprivileged `node` user. See docs/operations/compose.md.

# Node 24 LTS, the project's one Node major (.nvmrc, package.json engines, tools/setup-node.sh),
# pinned to the exact release tools/node-runtime installs, on Debian bookworm.
ARG NODE_IMAGE=node:24.22.3-bookworm-slim

# package.json reduced to what `npm ci` reads, so that editing a script or the description does
# not invalidate the dependency layers below: they are rebuilt only when the dependencies change.
FROM ${NODE_IMAGE} AS manifests
WORKDIR /workspace
COPY package.json package-lock.json ./
RUN node -e "const p = require('./package.json'); const keep = ['name', 'version', 'private', 'engines', 'dependencies', 'devDependencies', 'optionalDependencies', 'overrides', 'allowScripts']; require('fs').writeFileSync('package.json', JSON.stringify(Object.fromEntries(keep.filter((key) => key in p).map((key) => [key, p[key]])), null, 2))"

FROM ${NODE_IMAGE} AS dependencies
WORKDIR /workspace
ENV NX_DAEMON=false NX_NO_CLOUD=true NX_TUI=false npm_config_update_notifier=false
COPY --from=manifests /workspace/package.json /workspace/package-lock.json ./
# --ignore-scripts: every dependency's install script was reviewed and denied (package.json's
# allowScripts, docs/decisions/install-scripts.md); an image's npm may predate allowScripts, so the
# flag keeps the same decision there.
RUN npm ci --ignore-scripts --no-audit --no-fund

FROM dependencies AS production-dependencies
RUN npm prune --omit=dev --no-audit --no-fund && npm cache clean --force

FROM dependencies AS build
COPY nx.json tsconfig.base.json tsconfig.json .swcrc ./
COPY tools ./tools
COPY deploy/catalog ./deploy/catalog
COPY libs ./libs
COPY apps ./apps
RUN node tools/docker/stage-images.mjs /staged

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production LOG_FORMAT=json
WORKDIR /app
# Owned by root and read-only to the `node` user: a compromised process cannot rewrite its code.
COPY --from=production-dependencies /workspace/node_modules ./node_modules
USER node

FROM runtime AS ops
COPY --from=build /staged/ops/ ./
# The demo command keeps the credentials it made here (a volume in compose), writable by `node` only.
USER root
RUN mkdir -p /var/lib/merchant-payments-demo && chown node:node /var/lib/merchant-payments-demo && chmod 700 /var/lib/merchant-payments-demo
USER node
CMD ["node", "--enable-source-maps", "dist/apps/ops/src/init.js"]

# The default target: one service's image, picked by SERVICE (a catalog name).
FROM runtime AS service
ARG SERVICE
COPY --from=build /staged/${SERVICE}/ ./
RUN test -f service.js || { echo "build with --build-arg SERVICE=<a service of deploy/catalog/services.json>, or --target ops" >&2; exit 1; }
# Docker's own check, for `docker run` and compose; Kubernetes uses its probes instead. It asks for
# readiness (its database and Kafka answer), so it allows what those checks may take on a loaded
# host: 10 s an answer, and five misses in a row (50 s) before the container is unhealthy, since
# compose's `up` gives up on a dependency the moment it is reported unhealthy.
HEALTHCHECK --interval=10s --timeout=10s --start-period=120s --retries=5 CMD ["node", "healthcheck.js"]
# The services stop gracefully on SIGTERM (drain, close consumers, flush logs) within SHUTDOWN_GRACE_MS.
STOPSIGNAL SIGTERM
CMD ["node", "--enable-source-maps", "service.js"]
