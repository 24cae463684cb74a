#!/bin/sh
# Build the Dockerfile's image without an image registry: a Debian bookworm base made by
# debootstrap from Debian's packages (python3 and a venv on PATH in place of python:3.11-slim),
# imported into podman, the Dockerfile built FROM it (podman build --from), then run against a
# PostgreSQL server and asked for /readyz.
#
#   sh deploy/build_image.sh [DATABASE_ADMIN_URL]   # default postgres://postgres@127.0.0.1:5432
#
# Needs root and Debian's podman, buildah and debootstrap (apt-get install podman buildah
# debootstrap), a reachable Debian mirror (MIRROR) and PyPI (the Dockerfile's pip install).
# Exits 0 when /readyz answered 200; else non-zero with podman's own error. Everything it
# makes is removed at the end (the container, the images with KEEP_IMAGES=0, the folder).
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
ADMIN_URL=${1:-postgres://postgres@127.0.0.1:5432}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
BASE=localhost/incidentlib-base:bookworm
IMAGE=localhost/incidentlib:local
KEEP_IMAGES=${KEEP_IMAGES:-0}
WORK=$(mktemp -d /tmp/incidentlib-image-XXXXXX)
CONTAINER=incidentlib-image-check-$$
DATABASE=incidentlib_image_check

cleanup() {
    podman rm -f "$CONTAINER" >/dev/null 2>&1 || true
    if [ "$KEEP_IMAGES" = 0 ]; then
        podman rmi -f "$IMAGE" "$BASE" >/dev/null 2>&1 || true
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT INT TERM

for program in podman debootstrap; do
    command -v "$program" >/dev/null || { echo "$program is missing: apt-get install podman buildah debootstrap" >&2; exit 2; }
done

echo "== base: debootstrap bookworm (minbase + python3, python3-venv, ca-certificates)"
debootstrap --variant=minbase --include=python3,python3-venv,ca-certificates \
    bookworm "$WORK/rootfs" "$MIRROR" >"$WORK/debootstrap.log" 2>&1 \
    || { tail -20 "$WORK/debootstrap.log" >&2; exit 1; }
# python:3.11-slim's `python` and `pip` outside Debian's externally managed Python: a venv.
chroot "$WORK/rootfs" python3 -m venv /opt/venv
# This machine reaches PyPI through a TLS-inspecting proxy whose CA only its own store holds:
# the build's pip must trust the same store (HOST_CA=0 keeps Debian's alone).
if [ "${HOST_CA:-1}" = 1 ]; then
    cp /etc/ssl/certs/ca-certificates.crt "$WORK/rootfs/etc/ssl/certs/ca-certificates.crt"
fi
rm -rf "$WORK/rootfs/var/lib/apt/lists/"* "$WORK/rootfs/var/cache/apt/"*.bin
tar -C "$WORK/rootfs" -c . | podman import \
    --change 'ENV PATH=/opt/venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV LANG=C.UTF-8' \
    --change 'CMD ["python3"]' \
    - "$BASE"

echo "== the Dockerfile, FROM $BASE (podman build --from)"
# --isolation chroot: RUN steps without an OCI runtime. This sandbox mounts cgroup v1
# controllers with an empty cgroup2 hierarchy beside them ("hybrid"), which crun refuses
# ("cgroups in hybrid mode not supported, drop all controllers from cgroupv2").
podman build --format docker --isolation "${BUILD_ISOLATION:-chroot}" --from "$BASE" -t "$IMAGE" \
    -f "$ROOT/Dockerfile" "$ROOT"

echo "== run it against $ADMIN_URL/$DATABASE and ask /readyz"
psql "$ADMIN_URL/postgres" -qc "DROP DATABASE IF EXISTS $DATABASE WITH (FORCE)" -c "CREATE DATABASE $DATABASE"
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
ENVS="-e DATABASE_URL=$ADMIN_URL/$DATABASE -e SECRET_KEY=$(python3 -c 'import secrets; print(secrets.token_urlsafe(50))')
    -e ALLOWED_HOSTS=127.0.0.1 -e SECURE_SSL_REDIRECT=0 -e SECURE_COOKIES=0
    -e GUNICORN_BIND=127.0.0.1:$PORT -e WEB_CONCURRENCY=2 -e METRICS_ADDRESS=off"
# podman run first. In this sandbox crun cannot start a container: it refuses the hybrid
# cgroups even with --cgroups disabled, and without CAP_SYS_RESOURCE it may not raise
# RLIMIT_NOFILE/NPROC to podman's defaults (hence the lower --ulimit). Then the same image
# runs under `buildah run --isolation chroot` (no OCI runtime, the host's network), with the
# image's own CMD, WORKDIR and USER.
# shellcheck disable=SC2086
if podman run -d --name "$CONTAINER" --network host --cgroups disabled --no-healthcheck \
    --ulimit nofile=1024:1024 --ulimit nproc=4096:4096 $ENVS "$IMAGE"; then
    RUNNING="podman run"
    alive() { [ "$(podman inspect -f '{{.State.Running}}' "$CONTAINER")" = true ]; }
    container_logs() { podman logs --tail 40 "$CONTAINER"; }
else
    echo "podman run failed (above); running the image with buildah run --isolation chroot"
    podman rm -f "$CONTAINER" >/dev/null 2>&1 || true
    WORKING=$(buildah from --name "$CONTAINER" "$IMAGE")
    # shellcheck disable=SC2086
    buildah run --isolation chroot $(echo "$ENVS" | sed 's/-e /--env /g') "$WORKING" \
        sh -c "python manage.py migrate --no-input && exec gunicorn incidentlib.wsgi" \
        >"$WORK/container.log" 2>&1 &
    RUN_PID=$!
    RUNNING="buildah run --isolation chroot"
    alive() { kill -0 "$RUN_PID" 2>/dev/null; }
    container_logs() { tail -40 "$WORK/container.log"; }
    stop_run() {
        # gunicorn's master (and workers) listening on $PORT: started by this script.
        for pid in $(ss -ltnpH "sport = :$PORT" | grep -o 'pid=[0-9]*' | cut -d= -f2 | sort -u); do
            kill "$pid" 2>/dev/null || true
        done
        kill "$RUN_PID" 2>/dev/null || true
        wait "$RUN_PID" 2>/dev/null || true
        buildah rm "$WORKING" >/dev/null 2>&1 || true
        cleanup
    }
    trap stop_run EXIT INT TERM
fi
status=000
for _ in $(seq 120); do
    status=$(curl -s -o "$WORK/readyz.json" -w '%{http_code}' "http://127.0.0.1:$PORT/readyz" || true)
    [ "$status" = 200 ] && break
    alive || break
    sleep 1
done
echo "/readyz ($RUNNING): $status $(cat "$WORK/readyz.json" 2>/dev/null)"
[ "$status" = 200 ] || { container_logs >&2; exit 1; }
psql "$ADMIN_URL/postgres" -qc "DROP DATABASE IF EXISTS $DATABASE WITH (FORCE)" || true
