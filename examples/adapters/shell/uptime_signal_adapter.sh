#!/usr/bin/env bash
# uptime_signal_adapter.sh -- an example secure-signals "exec" adapter in plain bash.
#
# The daemon starts this program once and talks to it over stdin/stdout, one compact JSON
# object per line (see docs/exec-adapters.md):
#
#   daemon -> {"id":0,"method":"initialize","params":{"adapter":"NAME","options":{}}}
#   program <- {"id":0,"result":{"adapter_version":"1.0.0","sdk_version":"5.2.15"}}
#   daemon -> {"id":1,"method":"collect","params":{"request_id":"ad-42","privacy":null}}
#   program <- {"id":1,"result":{"signal":"Ym9vdF9pZD0uLi47dXB0aW1lX3M9NDIuMTc="}}
#
# The signal is "boot_id=<the kernel's random boot id>;uptime_s=<seconds since boot>",
# base64-encoded as the protocol asks (the daemon decodes and encrypts it). The "SDK" is
# bash itself, so sdk_version is bash's version. The adapter takes no options and does not
# look at the privacy state; an adapter whose signal needs consent must (see the Python
# example, which answers consent_missing).
#
# There is no JSON parser here (no jq): the daemon writes compact JSON with "id" first and
# "method" second, so the first "id": and "method": in a line are the request's own, and
# bash's =~ finds the leftmost match. This is good enough for an example whose answers do
# not depend on params; an adapter that needs its options or the privacy state should be
# written in a language with a JSON parser.
#
# Output: printf is a bash builtin that writes (and flushes) each line at once, so every
# reply reaches the daemon without buffering. Diagnostics go to stderr, which the daemon
# copies into its log. The loop ends, and the program exits 0, at the end of stdin.
#
# Try it:
#   printf '%s\n' '{"id":0,"method":"initialize","params":{"adapter":"uptime","options":{}}}' \
#       '{"id":1,"method":"collect","params":{"request_id":"r1","privacy":null}}' | ./uptime_signal_adapter.sh

set -u

readonly ADAPTER_VERSION="1.0.0"
readonly SDK_VERSION="${BASH_VERSINFO[0]}.${BASH_VERSINFO[1]}.${BASH_VERSINFO[2]}"
readonly UPTIME_FILE=/proc/uptime
readonly BOOT_ID_FILE=/proc/sys/kernel/random/boot_id

log() { printf 'uptime_signal_adapter: %s\n' "$*" >&2; }

# reply_error ID CODE MESSAGE -- MESSAGE must not contain '"' or '\' (it is not escaped).
reply_error() {
    printf '%s\n' "{\"id\":$1,\"error\":{\"code\":\"$2\",\"message\":\"$3\"}}"
}

initialize() {
    local id=$1
    # A real adapter would load its SDK here and answer sdk_unavailable when it cannot.
    if [[ ! -r $UPTIME_FILE || ! -r $BOOT_ID_FILE ]]; then
        log "initialize failed: $UPTIME_FILE or $BOOT_ID_FILE cannot be read"
        reply_error "$id" sdk_unavailable "$UPTIME_FILE or $BOOT_ID_FILE cannot be read"
        return
    fi
    printf '%s\n' "{\"id\":$id,\"result\":{\"adapter_version\":\"$ADAPTER_VERSION\",\"sdk_version\":\"$SDK_VERSION\"}}"
}

collect() {
    local id=$1 uptime boot_id signal
    # `read` is a builtin: no process is started for these two.
    if ! read -r uptime _ < "$UPTIME_FILE" || ! read -r boot_id < "$BOOT_ID_FILE"; then
        reply_error "$id" collection_failed "cannot read $UPTIME_FILE or $BOOT_ID_FILE"
        return
    fi
    # -w0: one line, no wrapping (base64 wraps at 76 columns by default).
    signal=$(printf '%s' "boot_id=$boot_id;uptime_s=$uptime" | base64 -w0)
    printf '%s\n' "{\"id\":$id,\"result\":{\"signal\":\"$signal\"}}"
}

# `|| [[ -n $line ]]` also handles a last line without its newline.
while IFS= read -r line || [[ -n $line ]]; do
    if [[ ! $line =~ \"id\":([0-9]+) ]]; then
        log "ignoring a line without a numeric id (${#line} bytes)"
        continue
    fi
    id=${BASH_REMATCH[1]}
    method=""
    if [[ $line =~ \"method\":\"([^\"]*)\" ]]; then
        method=${BASH_REMATCH[1]}
    fi
    case $method in
        collect) collect "$id" ;;
        initialize) initialize "$id" ;;
        *)
            # Keep only harmless characters, since the name is echoed into JSON unescaped.
            reply_error "$id" collection_failed "unknown method '${method//[^A-Za-z0-9_.\/-]/?}'"
            ;;
    esac
done
exit 0
