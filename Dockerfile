# syntax=docker/dockerfile:1
# Questline in one image for every shape: the whole platform (`serve`, the default), one context
# (`serve --only avatar`), the gateway (`serve --only edge`), or `migrate`. See docs/deploy.md.
#
#   docker build -t questline:local .
#   docker run --init --read-only -p 8080:8080 -v questline-data:/data questline:local

# Both stages on the same Debian (glibc) base: npm ci picks the native modules' binaries
# (@node-rs/argon2, esbuild) for the platform the runtime stage runs on.
ARG NODE_IMAGE=node:24.22.3-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /src
# The manifests first: the installed packages are a layer of their own, built again only when the
# manifests change. No scripts yet (the prepare script builds, and the sources are not here).
COPY package.json package-lock.json ./
COPY packages/client/package.json packages/client/
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund --ignore-scripts
COPY . .
# The runtime directory: dist/ (the server bundle), web/dist (the web app), drizzle/ migrations,
# package.json, package-lock.json and the production node_modules.
RUN npm run build:runtime -- /runtime

FROM ${NODE_IMAGE} AS runtime
ARG VERSION=0.1.0
LABEL org.opencontainers.image.title="Questline" \
      org.opencontainers.image.description="A habit gamification platform: the whole platform, one context, the gateway or migrate" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.documentation="docs/deploy.md"
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    DATA_DIR=/data \
    BACKUP_DIR=/backups
WORKDIR /app
COPY --from=build --chown=root:root /runtime/ ./
# The embedded database, its lock file and the operator socket live in /data: the only place the
# process writes (the root filesystem may be read-only), owned by the unprivileged user it runs as
# (uid 1000, the image's `node`). Scheduled backups (BACKUP_SCHEDULE) go to /backups, a place of
# their own so that losing or restoring /data never takes them along: mount a volume there to use
# them (no VOLUME here, so a container without a schedule gets no anonymous volume for it).
RUN mkdir -p /data /backups && chown node:node /data /backups
USER node
VOLUME ["/data"]
EXPOSE 8080
# slim has no curl: node asks /readyz (200 once started with its database and bus; 503 while
# starting or draining).
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# What bin/questline.js loads once its build is current; the image's build is, so no bin/ shim.
# node handles SIGTERM (the drain) as PID 1 and starts no children; `--init` (compose: init: true)
# adds an init that reaps and forwards signals all the same.
ENTRYPOINT ["node", "dist/questline.js"]
CMD ["serve"]
