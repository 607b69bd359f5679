#!/usr/bin/env bash
# The cpu release as a hospital installs it (operator's guide §2), run by CI as root:
#
#   scripts/check-artefact.sh <release.tar.gz> <models bundle.tar>
#
# 1. unpacks the archive into an empty folder owned by root and makes it read-only;
# 2. as an unprivileged user, installs the models bundle with the release's own models tool into
#    a root-owned folder, after the documented step that hands that folder to the user
#    (and checks that without it the install is refused);
# 3. makes the models read-only again and starts the gateway from the unpacked tree as that
#    user, with only its data folder writable;
# 4. runs the release's self-test against it: all five operations must pass (--contract-only:
#    the random-weight LLM's AI-3 answers are noise, so a signed failed callback is its pass).
set -euo pipefail
archive="$(readlink -f "$1")"
bundle="$(readlink -f "$2")"
user=mdtgw-ci
[ "$(id -u)" = 0 ] || { echo "check-artefact: run as root (it creates the user and hands folders over)" >&2; exit 1; }
id "$user" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$user"

work="$(mktemp -d)"
gateway_pid=""
# Whatever the gateway's exit status once stopped, the check's own status stands (set -e would
# otherwise end the trap there, before the work folder is removed).
cleanup() {
  if [ -n "$gateway_pid" ]; then
    kill "$gateway_pid" 2>/dev/null || true
    wait "$gateway_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
chmod 755 "$work"
# A command run as the service user, in an empty environment but for what is given. Not a shell
# function: a function started in the background is a subshell, whose PID a kill stops while the
# gateway it started runs on; setpriv and env exec, so the PID is the gateway's.
run_as=(setpriv --reuid="$user" --regid="$user" --clear-groups -- env -i PATH="$PATH" HOME="$work/data")
as_user() { "${run_as[@]}" "$@"; }

echo "check-artefact: unpacking $(basename "$archive") ($(du -h "$archive" | cut -f1)) into an empty folder"
mkdir "$work/opt"
tar -xzf "$archive" -C "$work/opt"
app="$(echo "$work"/opt/mdt-ai-gateway-*)"
echo "check-artefact: unpacked $(du -sm "$app" | cut -f1) MB; code owned by root, read-only"
chown -R root:root "$work/opt"
chmod -R a-w "$work/opt"
cp "$bundle" "$work/models.tar" && chmod 644 "$work/models.tar"

mkdir -m 755 "$work/models"
if as_user "$app/bin/mdt-gateway" models install "$work/models.tar" --models-dir "$work/models" 2>/dev/null; then
  echo "check-artefact: the user could write a folder it does not own" >&2
  exit 1
fi
# The documented step (guide §2.2): the models folder belongs to the service user while it installs.
chown "$user" "$work/models"
as_user "$app/bin/mdt-gateway" models install "$work/models.tar" --models-dir "$work/models"
as_user "$app/bin/mdt-gateway" models verify --models-dir "$work/models"
chown -R root:root "$work/models"
chmod -R a-w "$work/models"
mkdir -m 700 "$work/data" "$work/tmp"
chown "$user" "$work/data" "$work/tmp"

free_port() { node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"; }
port="$(free_port)"
callback_port="$(free_port)"
settings=(
  HOST=127.0.0.1 PORT="$port" DATA_DIR="$work/data" TMPDIR="$work/tmp" MODELS_DIR="$work/models"
  LLM_MODEL=test-tiny-qwen2.gguf LLM_THREADS=1 WHISPER_MODEL=ggml-tiny-random.bin ASR_THREADS=1 OCR_WORKERS=1
  API_TOKENS=ci-client=ci-client-token-0123456789 OPERATOR_TOKENS=ci-operator=ci-operator-token-0123456789
  CALLBACK_BASE_URL="http://127.0.0.1:$callback_port" CALLBACK_SECRET="whsec_$(node -e "console.log(require('crypto').randomBytes(32).toString('base64'))")" LOG_LEVEL=warn
)
echo "check-artefact: starting the gateway as $user from $app (port $port)"
"${run_as[@]}" "${settings[@]}" "$app/bin/mdt-gateway" start >"$work/gateway.log" 2>&1 &
gateway_pid=$!
status=0
# A first call's cold start is no JIT on a CPU: on 2 cores it outran the warm call by more than
# the default 5 s once in four runs here, so only a far slower one fails this check.
as_user "${settings[@]}" "$app/bin/mdt-gateway" selftest --wait 300 --require-all --contract-only --slow-first 60 || status=$?
if [ "$status" != 0 ]; then
  echo "check-artefact: the self-test failed (exit $status); the gateway's log:" >&2
  tail -n 40 "$work/gateway.log" >&2
fi
exit "$status"
