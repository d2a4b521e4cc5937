#!/usr/bin/env bash
# Builds the image assessment-connect:local with buildah on a machine that reaches no container
# registry: its base is made here from Debian's packages (mmdebstrap: Debian trixie, whose nodejs
# is Node 20 like the machine's, with npm and CA certificates), imported into buildah as
# assessment-connect-base:trixie (kept, and reused by the next build), and the Containerfile is
# built on it. Needs root (or buildah's rootless setup), buildah and mmdebstrap (apt-get install
# buildah mmdebstrap), and the Debian and npm mirrors. Prints how long each step took.
#   deploy/build-image.sh            build (the base only when it is missing)
#   REBUILD_BASE=1 deploy/build-image.sh   make the base again too
set -euo pipefail
cd "$(dirname "$0")/.."

suite="${DEBIAN_SUITE:-trixie}"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
base="localhost/assessment-connect-base:${suite}"
image="${IMAGE:-assessment-connect:local}"
# chroot isolation: these machines cannot start an OCI runtime's containers.
isolation=(--isolation chroot)

for tool in buildah mmdebstrap; do
  command -v "$tool" >/dev/null 2>&1 || { echo "build-image: $tool is not installed (apt-get install $tool)" >&2; exit 1; }
done

seconds() { echo $((SECONDS - $1)); }

if [ "${REBUILD_BASE:-}" = 1 ] || ! buildah inspect --type image "$base" >/dev/null 2>&1; then
  started=$SECONDS
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  # --variant=apt: Debian's essential packages and apt; nodejs and npm from Debian's archive.
  mmdebstrap --quiet --variant=apt --include=nodejs,npm,ca-certificates \
    --aptopt='APT::Install-Recommends "false"' \
    --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin' \
    "$suite" "$work/base.tar" "$mirror"
  ctr="$(buildah from scratch)"
  buildah add --quiet "$ctr" "$work/base.tar" / >/dev/null
  buildah config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin --cmd '["node"]' "$ctr"
  buildah commit --quiet --rm "$ctr" "$base" >/dev/null
  rm -rf "$work"
  trap - EXIT
  probe="$(buildah from --quiet "$base")"
  echo "build-image: base $base made from Debian $suite in $(seconds "$started") s (node $(buildah run "${isolation[@]}" "$probe" -- node --version))"
  buildah rm "$probe" >/dev/null
fi

# The CA bundle npm trusts on this machine (npm config get cafile) goes to the build as a secret,
# so that the build reaches the registry however this machine does; it is not kept in the image.
secret=()
cafile="${NPM_CAFILE:-$(npm config get cafile 2>/dev/null || true)}"
if [ -n "$cafile" ] && [ "$cafile" != null ] && [ -s "$cafile" ]; then secret=(--secret "id=ca,src=$cafile"); fi

started=$SECONDS
# --format docker: the OCI image format has no HEALTHCHECK; Docker's keeps it.
buildah build --quiet --format docker "${isolation[@]}" --layers --force-rm \
  "${secret[@]}" --build-arg "BASE=$base" -f Containerfile -t "$image" . >/dev/null
echo "build-image: $image built in $(seconds "$started") s"
