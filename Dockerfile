# hintgate as a container: the gateway over streamable HTTP on port 8787, its embedded
# store and logs in the /data volume, run as the unprivileged `node` user.
#   docker build -t hintgate .
#   docker run -p 8787:8787 -e HINTGATE_TOKEN=<a long random token> \
#     -v "$PWD/hintgate.config.yaml:/config/hintgate.config.yaml:ro" -v hintgate-data:/data hintgate
FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY scripts ./scripts
COPY README.md LICENSE ./
COPY examples ./examples
RUN npm run build && npm pack --ignore-scripts --pack-destination /tmp

FROM node:20-bookworm-slim
ENV NODE_ENV=production
RUN mkdir -p /data /config /app && chown node:node /data /app
WORKDIR /app
COPY --from=build /tmp/hintgate-*.tgz /tmp/
RUN npm install --global --omit=dev --no-audit --no-fund /tmp/hintgate-*.tgz && rm /tmp/hintgate-*.tgz
USER node
VOLUME ["/data"]
EXPOSE 8787
HEALTHCHECK --interval=30s --timeout=5s CMD node -e "fetch('http://127.0.0.1:8787/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
ENTRYPOINT ["hintgate"]
CMD ["serve", "--config", "/config/hintgate.config.yaml", "--data-dir", "/data", "--http", "0.0.0.0:8787"]
