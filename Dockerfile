# syntax=docker/dockerfile:1
# mdt-ai-gateway for servers without a GPU (CPU inference). Build on a connected machine, then
# carry the image (docker save / docker load) into the hospital.
#
#   docker build -t mdt-ai-gateway:cpu .
#   docker run -p 8080:8080 --read-only --tmpfs /tmp \
#     -v /srv/mdt/models:/models:ro -v /srv/mdt/data:/data \
#     -e LLM_MODEL=Qwen2.5-1.5B-Instruct-Q4_K_M.gguf -e WHISPER_MODEL=ggml-base.bin mdt-ai-gateway:cpu
ARG NODE_VERSION=22

FROM node:${NODE_VERSION}-bookworm AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends cmake build-essential python3 \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
COPY scripts/setup ./scripts/setup
# A portable whisper-cli: the image may run on a different CPU than the one that built it.
ENV WHISPER_CUDA=off WHISPER_NATIVE=off
RUN npm install --no-audit --no-fund && npm run setup:whisper
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev

FROM node:${NODE_VERSION}-bookworm-slim AS runtime
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ffmpeg fonts-noto-cjk tini ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --home-dir /app --shell /usr/sbin/nologin gateway \
 && mkdir -p /data /models && chown gateway /data
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/.build/whisper/bin/whisper-cli ./.build/whisper/bin/whisper-cli
COPY models/manifest.json ./models/manifest.json
COPY LICENSE ./LICENSE
# The models command (fetch, bundle, install, verify), on PATH: docker run … mdt-models verify
RUN chmod +x dist/cli/models.js && ln -s /app/dist/cli/models.js /usr/local/bin/mdt-models
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 MODELS_DIR=/models DATA_DIR=/data TMPDIR=/tmp LLM_GPU=off
USER gateway
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=180s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["tini", "--"]
CMD ["node", "dist/main.js"]
