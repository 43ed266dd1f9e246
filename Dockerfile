# Sandbox Bank: two stages on node:20-slim.
#   docker build -t sandbox-bank .
#   docker run --rm -p 8080:8080 -p 8443:8443 -v sandbox-bank-data:/data sandbox-bank
# The image also carries the CLI on PATH (docs/cli.md), e.g. against a Bank running elsewhere:
#   docker run --rm --network host sandbox-bank sandbox-bank conformance --bank http://localhost:8080 --client acme

# ---- build: compile TypeScript and the better-sqlite3 native module, then drop dev dependencies ----
FROM node:20-slim AS build
WORKDIR /app
# better-sqlite3 falls back to building from source (node-gyp) when no prebuilt binary fits.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
# npm run build also compiles schemas/ into standalone validators (scripts/compile-schemas.js), then bundles the Bank
# and writes V8's code cache for it from one warm-up start (scripts/bundle.js), which reads the default clients file.
# The cache fits this stage's node, the same node:20-slim as the runtime stage below.
COPY schemas ./schemas
COPY scripts ./scripts
COPY fixtures ./fixtures
RUN npm run build \
 && npm prune --omit=dev

# ---- runtime: only what `node dist/bank/main.js` reads, run as the unprivileged `node` user ----
FROM node:20-slim
ENV NODE_ENV=production \
    DATA_DIR=/data
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY schemas ./schemas
COPY fixtures ./fixtures
# The dashboard's static files (plain JavaScript and CSS, nothing to build): /dashboard/ serves them from here.
COPY src/dashboard/assets ./src/dashboard/assets
# scripts/: the signed-headers helper that the startup log's curl hint uses, and the PKI helper.
COPY scripts ./scripts
# The sandbox-bank CLI (package.json "bin"): bin/ runs dist/cli/main.js as built above (no src/ here, so it
# never tries to build), linked onto PATH so `docker run ... sandbox-bank <command>` works.
COPY bin ./bin
RUN chmod 755 bin/sandbox-bank.js \
 && ln -s /app/bin/sandbox-bank.js /usr/local/bin/sandbox-bank
# The data directory (SQLite, keys, dev PKI) must exist and belong to `node` before it is declared a volume,
# so that a new named volume starts with that ownership.
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data"]
USER node
EXPOSE 8080 8443
# No curl in slim images: ask /readyz with node itself.
HEALTHCHECK --interval=15s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "require('node:http').get({ host: '127.0.0.1', port: process.env.PORT || 8080, path: '/readyz', timeout: 4000 }, (res) => process.exit(res.statusCode === 200 ? 0 : 1)).on('timeout', () => process.exit(1)).on('error', () => process.exit(1))"]
# npm start's command, flags included (package.json "start", docs/architecture.md "Memory");
# test/unit/start-flags.test.ts holds the two equal.
CMD ["node", "--max-semi-space-size=8", "--v8-pool-size=1", "--expose-gc", "--no-allocation-site-pretenuring", "dist/bank/main.js"]
