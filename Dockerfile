# One image recipe for the services: `docker build --build-arg APP=gateway .` (APP = gateway | orchestrator |
# tool-runner | resource-service | mcp-bridge). Stage 1 builds the whole workspace; stage 2 installs production dependencies only;
# stage 3 is the small runtime: node:24 slim, production node_modules, the libs' and this app's dist, the templates
# (and the dashboard's static files, which the gateway serves at /ui).
FROM node:24-bookworm-slim AS build
WORKDIR /repo
COPY package.json package-lock.json ./
# Every workspace's package.json (npm ci checks the lockfile against all of them).
COPY libs/contracts/package.json libs/contracts/
COPY libs/agenturn/package.json libs/agenturn/
COPY libs/llm/package.json libs/llm/
COPY libs/bus/package.json libs/bus/
COPY libs/tool-kit/package.json libs/tool-kit/
COPY libs/repository/package.json libs/repository/
COPY libs/resource-client/package.json libs/resource-client/
COPY libs/mcp-server/package.json libs/mcp-server/
COPY libs/testkit/package.json libs/testkit/
COPY apps/gateway/package.json apps/gateway/
COPY apps/orchestrator/package.json apps/orchestrator/
COPY apps/tool-runner/package.json apps/tool-runner/
COPY apps/resource-service/package.json apps/resource-service/
COPY apps/cli/package.json apps/cli/
COPY apps/mcp-bridge/package.json apps/mcp-bridge/
COPY apps/dashboard/package.json apps/dashboard/
RUN npm ci --no-audit --no-fund
COPY tsconfig.base.json tsconfig.build.json ./
COPY libs libs
COPY apps apps
# tsconfig.build.json also builds the third-party tool example.
COPY examples examples
RUN node_modules/.bin/tsc -b tsconfig.build.json
# The ops dashboard (static files the gateway serves at /ui).
COPY tools/scripts/build-dashboard.mjs tools/scripts/
RUN node tools/scripts/build-dashboard.mjs --force

FROM node:24-bookworm-slim AS prod-deps
WORKDIR /repo
COPY --from=build /repo/package.json /repo/package-lock.json ./
COPY --from=build /repo/libs/contracts/package.json libs/contracts/
COPY --from=build /repo/libs/agenturn/package.json libs/agenturn/
COPY --from=build /repo/libs/llm/package.json libs/llm/
COPY --from=build /repo/libs/bus/package.json libs/bus/
COPY --from=build /repo/libs/tool-kit/package.json libs/tool-kit/
COPY --from=build /repo/libs/repository/package.json libs/repository/
COPY --from=build /repo/libs/resource-client/package.json libs/resource-client/
COPY --from=build /repo/libs/mcp-server/package.json libs/mcp-server/
COPY --from=build /repo/libs/testkit/package.json libs/testkit/
COPY --from=build /repo/apps/gateway/package.json apps/gateway/
COPY --from=build /repo/apps/orchestrator/package.json apps/orchestrator/
COPY --from=build /repo/apps/tool-runner/package.json apps/tool-runner/
COPY --from=build /repo/apps/resource-service/package.json apps/resource-service/
COPY --from=build /repo/apps/cli/package.json apps/cli/
COPY --from=build /repo/apps/mcp-bridge/package.json apps/mcp-bridge/
COPY --from=build /repo/apps/dashboard/package.json apps/dashboard/
# --ignore-scripts: no install scripts at runtime (LanceDB ships prebuilt binaries as optional dependencies).
RUN npm ci --omit=dev --no-audit --no-fund --ignore-scripts

FROM node:24-bookworm-slim
ARG APP
RUN test -n "$APP" || (echo "build with --build-arg APP=<service>" && false)
ENV NODE_ENV=production LANCEDB_LOG=error APP=${APP} NOVELRAG_DATA_DIR=/data NOVELRAG_TEMPLATES_DIR=/app/templates
WORKDIR /app
COPY --from=prod-deps /repo/node_modules node_modules
COPY --from=build /repo/package.json ./
# The workspace symlinks in node_modules/@novelrag point at these folders.
COPY --from=build /repo/libs/contracts/package.json libs/contracts/
COPY --from=build /repo/libs/contracts/dist libs/contracts/dist
COPY --from=build /repo/libs/agenturn/package.json libs/agenturn/
COPY --from=build /repo/libs/agenturn/dist libs/agenturn/dist
COPY --from=build /repo/libs/llm/package.json libs/llm/
COPY --from=build /repo/libs/llm/dist libs/llm/dist
COPY --from=build /repo/libs/bus/package.json libs/bus/
COPY --from=build /repo/libs/bus/dist libs/bus/dist
COPY --from=build /repo/libs/tool-kit/package.json libs/tool-kit/
COPY --from=build /repo/libs/tool-kit/dist libs/tool-kit/dist
COPY --from=build /repo/libs/repository/package.json libs/repository/
COPY --from=build /repo/libs/repository/dist libs/repository/dist
COPY --from=build /repo/libs/resource-client/package.json libs/resource-client/
COPY --from=build /repo/libs/resource-client/dist libs/resource-client/dist
COPY --from=build /repo/libs/mcp-server/package.json libs/mcp-server/
COPY --from=build /repo/libs/mcp-server/dist libs/mcp-server/dist
COPY --from=build /repo/apps/${APP}/package.json apps/${APP}/
COPY --from=build /repo/apps/${APP}/dist apps/${APP}/dist
# The dashboard's static build (a few tens of KB; only the gateway serves it, at /ui).
COPY --from=build /repo/apps/dashboard/dist apps/dashboard/dist
COPY templates templates
COPY deploy/healthcheck.mjs deploy/healthcheck.mjs
RUN mkdir -p /data && chown node:node /data
# The Node flags the app asks for (`novelrag.nodeFlags` in its package.json, e.g. the gateway's --single-threaded-gc;
# tools/scripts/node-flags.mjs), read once here: process flags, as V8 reads its GC flags at startup.
RUN node -e "const f = require('./apps/' + process.env.APP + '/package.json').novelrag?.nodeFlags ?? []; \
      process.stdout.write(f.join(' '))" > /app/node-flags
USER node
# The instance id is the container's hostname (unique per replica), so the health check can ask this very instance.
CMD ["sh", "-c", "export NOVELRAG_INSTANCE_ID=${NOVELRAG_INSTANCE_ID:-$APP-$(hostname)}; exec node $(cat /app/node-flags) apps/${APP}/dist/main.js"]
