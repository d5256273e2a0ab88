#!/usr/bin/env bash
# Provision what the real-engine suite (`npm run test:real`) needs on a Debian machine, as root:
# podman + runc + catatonit (containers; catatonit is podman's `--init`), docker (docker.io, containerd,
# tini as docker's `--init`) with its daemon running, chromium and an emoji font (page tests), the container runtime's
# config for hosts with hybrid cgroups and a capped `nofile` limit, and an offline engine image built
# from host binaries and imported into both runtimes (no registry is needed). Safe to run twice: each
# step is skipped when its result is already there.
#
# The llama.cpp server and its models are not installed here: the suite finds them through
# LLM_BENCH_LLAMA_DIR (default ../shared/engines/llama.cpp beside the repository) and fails,
# naming the path, when they are missing.
set -euo pipefail
cd "$(dirname "$0")/.."

SHARED=${LLM_BENCH_SHARED:-$(cd .. && pwd)/shared}
IMAGE=${LLM_BENCH_IMAGE:-localhost/llm-bench-engine:test}

if [ "$(id -u)" != 0 ]; then
  echo "provision-real.sh: run as root (it installs Debian packages)" >&2
  exit 1
fi

need=()
command -v podman >/dev/null || need+=(podman)
command -v runc >/dev/null || need+=(runc)
[ -x /usr/libexec/podman/catatonit ] || need+=(catatonit)
command -v chromium >/dev/null || need+=(chromium)
# The comment's screenshots show its status marks as GitHub does: an emoji font.
[ -f /usr/share/fonts/truetype/noto/NotoColorEmoji.ttf ] || need+=(fonts-noto-color-emoji)
command -v dockerd >/dev/null || need+=(docker.io containerd)
command -v docker-init >/dev/null || need+=(tini)   # docker's `--init`
if [ ${#need[@]} -gt 0 ]; then
  echo "installing ${need[*]}"
  apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${need[@]}"
fi

# crun cannot run with hybrid cgroups, and podman raises rlimits above the machine's hard cap
# unless told otherwise: runc, cgroupfs, file events, explicit ulimits.
if [ ! -f /etc/containers/containers.conf ] || ! cmp -s "$SHARED/containers/containers.conf" /etc/containers/containers.conf; then
  install -D -m 644 "$SHARED/containers/containers.conf" /etc/containers/containers.conf
fi

# The docker daemon, without a bridge or iptables rules (targets use the host network; this machine
# kind has no systemd). Its own session, so it outlives this script for the suite that follows.
docker_up() { docker version --format '{{.Server.Version}}' >/dev/null 2>&1; }
if ! docker_up; then
  setsid dockerd --iptables=false --bridge=none >/var/log/llm-bench-dockerd.log 2>&1 < /dev/null &
  for _ in $(seq 1 100); do docker_up && break; sleep 0.2; done
  docker_up || { echo "provision-real.sh: dockerd did not answer within 20 s (see /var/log/llm-bench-dockerd.log)" >&2; exit 1; }
fi

root=
rootfs() {
  [ -n "$root" ] && return
  root=$(mktemp -d)
  trap 'rm -rf "$root"' EXIT
  bash "$SHARED/containers/mkrootfs.sh" "$root"
  # The llama.cpp server is mounted into containers at run time; its shared libraries must be in the image.
  for l in $(ldd "$SHARED/engines/llama.cpp/llama-server" | grep -oE '/[^ ]+\.so[^ ]*'); do
    mkdir -p "$root$(dirname "$l")"
    cp -Ln "$l" "$root$l" 2>/dev/null || true
  done
}
if ! podman image exists "$IMAGE"; then
  rootfs
  tar -C "$root" -c . | podman import - "$IMAGE" >/dev/null
  echo "built $IMAGE for podman"
fi
if ! docker image inspect "$IMAGE" >/dev/null 2>&1; then
  rootfs
  tar -C "$root" -c . | docker import - "$IMAGE" >/dev/null
  echo "built $IMAGE for docker"
fi
echo "real-engine suite provisioned: podman $(podman --version | awk '{print $3}'), docker $(docker version --format '{{.Server.Version}}'), $(chromium --version 2>/dev/null | head -1), image $IMAGE"
