#!/usr/bin/env bash
# Builds the image (deploy/build-image.sh) and runs the service in it as the image says (its user,
# its command), with buildah's chroot isolation (these machines cannot start an OCI runtime's
# containers), until /healthz answers; checks that the user is not root and that the image's
# HEALTHCHECK command passes against it. .ci/run runs this beside the tests. Prints the times.
set -euo pipefail
cd "$(dirname "$0")/.."
image="${IMAGE:-assessment-connect:local}"
began=$SECONDS
IMAGE="$image" deploy/build-image.sh

port=18500
while (echo >"/dev/tcp/127.0.0.1/${port}") 2>/dev/null; do port=$((port + 1)); done
ctr="$(buildah from --quiet "localhost/$image")"
log="$(mktemp)"
server=""
finish() {
  if [ -n "$server" ]; then kill -TERM -- "-$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  buildah rm "$ctr" >/dev/null 2>&1 || true
  rm -f "$log"
}
trap finish EXIT
run=(buildah run --isolation chroot --env "PORT=$port" --env HOST=127.0.0.1 --env ADMIN_TOKEN= "$ctr" --)

uid="$("${run[@]}" id -u)"
if [ "$uid" = 0 ]; then echo "smoke-image: the image runs as root" >&2; exit 1; fi
# The image's own command (Cmd), as a container runtime would start it.
mapfile -t cmd < <(buildah inspect --type image --format '{{range .Docker.Config.Cmd}}{{println .}}{{end}}' "localhost/$image" | sed '/^$/d')
started=$SECONDS
setsid "${run[@]}" "${cmd[@]}" >"$log" 2>&1 &
server=$!
answered=""
for _ in $(seq 1 240); do
  if curl -fsS "http://127.0.0.1:${port}/healthz" >/dev/null 2>&1; then answered=yes; break; fi
  kill -0 "$server" 2>/dev/null || break
  sleep 0.5
done
if [ -z "$answered" ]; then echo "smoke-image: the service in the image did not answer /healthz:" >&2; cat "$log" >&2; exit 1; fi
echo "smoke-image: the service in $image (uid $uid, ${cmd[*]}) answered /healthz on port $port $((SECONDS - started)) s after it was started"
# The HEALTHCHECK's command, run in the image beside the server, must pass.
mapfile -t check < <(buildah inspect --type image --format '{{range .Docker.Config.Healthcheck.Test}}{{println .}}{{end}}' "localhost/$image" | sed '/^$/d')
if [ "${check[0]:-}" != CMD ]; then echo "smoke-image: the image has no HEALTHCHECK CMD" >&2; exit 1; fi
"${run[@]}" "${check[@]:1}"
echo "smoke-image: the image's HEALTHCHECK passed; all in $((SECONDS - began)) s"
