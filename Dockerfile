# syntax=docker/dockerfile:1
# mdt-ai-gateway for servers without a GPU: the cpu release artefact (npm run release, the tree
# CI unpacks and self-tests) on Debian with Node.js, ffmpeg and CJK fonts. Build on a connected
# machine, then carry the image (docker save / docker load; operator's guide §4).
#
#   docker build -t mdt-ai-gateway:0.1.0-cpu .
#   # or ship an artefact built and tested before: a folder with its .tar.gz and SHA256SUMS
#   docker build --build-context artefact=./release -t mdt-ai-gateway:0.1.0-cpu .
#
# Downloads of this build: the base images, Debian's packages and the npm registry, nothing
# else (operator's guide §3.2 lists them).
ARG NODE_VERSION=22

FROM node:${NODE_VERSION}-bookworm AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends cmake build-essential python3 \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY package.json package-lock.json .npmrc ./
# Every package as the lockfile pins it (npm install honours the lockfile as npm ci would; npm ci
# refuses the one npm writes with node-llama-cpp's optional platform packages: guide §4.1), with
# no install script, so none downloads anything. better-sqlite3 is the one addon npm carries no
# binary of: compiled here against Node's headers (its own install would fetch one from GitHub).
RUN npm install --no-audit --no-fund --ignore-scripts \
 && npm rebuild better-sqlite3 --build-from-source --nodedir=/usr/local
COPY . .
RUN npm run release -- --target cpu --out /artefact

FROM scratch AS artefact
COPY --from=build /artefact/ /

FROM node:${NODE_VERSION}-bookworm-slim AS runtime
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ffmpeg fonts-noto-cjk tini ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --home-dir /app --shell /usr/sbin/nologin gateway \
 && mkdir -p /data /models && chown gateway /data /models
# The artefact, checked against its SHA256SUMS and unpacked owned by root: the gateway's user can
# write only /data (and /models, for mdt-gateway models install into a new volume).
RUN --mount=type=bind,from=artefact,target=/artefact \
    cd /artefact && sha256sum --check --ignore-missing SHA256SUMS \
 && mkdir /app && tar -xzf /artefact/mdt-ai-gateway-*-linux-x64-cpu.tar.gz -C /app --strip-components=1 --no-same-owner \
 && ln -s /app/bin/mdt-gateway /usr/local/bin/mdt-gateway
WORKDIR /app
# HOST=0.0.0.0: the container serves the network, so the gateway refuses to start without
# API_TOKENS (operator's guide 10.1); pass them with --env-file or compose.
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 MODELS_DIR=/models DATA_DIR=/data TMPDIR=/tmp LLM_GPU=off
USER gateway
VOLUME ["/data"]
EXPOSE 8080
# The start period covers hashing the models (about 1 s per GB, more from a slow disk) and
# loading the LLM; a passing check ends it early, so generous costs nothing.
HEALTHCHECK --interval=30s --timeout=5s --start-period=600s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# docker stop: give the gateway's drain (SHUTDOWN_TIMEOUT_MS, 30 s) time: docker run --stop-timeout 45
STOPSIGNAL SIGTERM
ENTRYPOINT ["tini", "--"]
CMD ["mdt-gateway", "start"]
