# syntax=docker/dockerfile:1
# The harness-gym server image: `node dist/cli/main.js serve` on port 8080, as the non-root user `node` (1000).
#
#   docker build -t harness-gym:0.1.0 .
#   docker run --rm -p 8080:8080 harness-gym:0.1.0                        # ws://127.0.0.1:8080/v1/env
#   docker run --rm -p 8080:8080 -e HARNESS_GYM_TOKEN=s3cret harness-gym:0.1.0 serve --host 0.0.0.0 --port 8080 --workers 2
#
# Arguments after the image name replace CMD (the `serve` flags; `--host 0.0.0.0` is needed to be reached
# from outside the container). SIGTERM (`docker stop`, Kubernetes) goes to node itself (exec form, node is
# PID 1): the server stops taking work, answers what it had received, closes its sessions with 1001 and
# exits 0 (docs/DEPLOY.md "Draining"). Set `--workers` to the CPUs the container may use: `auto` counts
# the host's cores, not a CPU limit. docs/DEPLOY.md has the rest; test/deploy/manifests.test.ts checks this
# file's ports, health check and user against the Kubernetes manifests.

ARG NODE_IMAGE=node:20.20-bookworm-slim

# ---- build: every dependency, then the TypeScript build -------------------------------------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: `prepare` would run the build before the sources are here; no dependency needs its
# install script (msgpackr's native part comes prebuilt as an optional package; esbuild is tsx's, dev only).
RUN npm ci --no-audit --no-fund --ignore-scripts
# The sources (.dockerignore keeps node_modules, dist, .git, tests and the Python client out).
COPY . .
RUN node_modules/.bin/tsc -p tsconfig.build.json

# ---- production dependencies only ---------------------------------------------------------------------
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund --ignore-scripts && npm cache clean --force

# ---- runtime ------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
WORKDIR /app
# What `serve` reads at run time: package.json (the package root and version), the built code, the
# embedded harness (harness/*.yaml, skills, tools), and the record viewer's static files.
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY harness ./harness
COPY recording/view/static ./recording/view/static
COPY examples ./examples
# The image's files stay root's and read-only to the server; give `--record DIR` a mounted, writable volume.
# 1000 is the base image's user `node`, numeric so that Kubernetes' runAsNonRoot can check it.
USER 1000:1000
EXPOSE 8080
# /readyz: 200 when taking new sessions, 503 while its workers start, while draining or at max_sessions.
# No curl or wget in the slim image: node's fetch does it.
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8080/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "dist/cli/main.js"]
CMD ["serve", "--host", "0.0.0.0", "--port", "8080", "--workers", "2"]
