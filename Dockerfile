# The demo traffic image of docker-compose.yml: errscope installed from this checkout, running
# `errscope demo` in a loop (deploy/demo/loop.sh) and exporting OTLP to the Collector.
#   docker compose build demo
ARG PYTHON_IMAGE=python:3.11.13-slim-bookworm
FROM ${PYTHON_IMAGE}

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /src
COPY pyproject.toml README.md ./
COPY instrumentation ./instrumentation
RUN pip install . && useradd --uid 10001 --no-create-home --shell /usr/sbin/nologin errscope
COPY deploy/demo/loop.sh /usr/local/bin/errscope-demo-loop

USER 10001
WORKDIR /tmp
ENTRYPOINT ["/usr/local/bin/errscope-demo-loop"]
