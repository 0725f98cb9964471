#!/usr/bin/env bash
# The vendor SDK harness (docs/vendor-apps.md, Harness/vendor-sdk/README.md): runs the vendor's unmodified Android
# SDK libraries (libApp 3.5.13 and 1.3.8.19) on a desktop JVM against `ucube simulate --vendor-app`, one flow at a
# time, and prints one line per flow and version: PASS or FAIL with what the SDK itself reported.
#
# The vendor's classes are never part of this repository: they are extracted at run time from a copy of the vendor's
# repository (YouTransactor-SAS/mPOS-SDK-Android, a bare git directory or a clone) that UCUBE_VENDOR_SDK_REPO names.
# Without it the harness says that it skipped, and why, and exits 0.
#
# Needs: git, unzip (or python3), a JDK (javac, java, keytool; Debian: default-jdk-headless), and the SDK's
# third-party jars: org.json with Android's semantics (Debian: libandroid-json-java), commons-lang3
# (libcommons-lang3-java), commons-codec (libcommons-codec-java), commons-io (libcommons-io-java). They are looked up
# in /usr/share/java and ~/.m2; UCUBE_HARNESS_CLASSPATH adds jars of your own (colon-separated).
#
# Environment: UCUBE_VENDOR_SDK_REPO (required), UCUBE_BINARY (default .build/debug/ucube), UCUBE_HARNESS_FLOWS
# (space-separated subset), UCUBE_HARNESS_VERSIONS (3.5.13 and/or 1.3.8.19), UCUBE_HARNESS_SIM_OPTIONS (more
# `ucube simulate` options, e.g. `--min-answer-delay 0`), UCUBE_HARNESS_VERBOSE=1 (the SDK's log and the
# simulator's stderr on stderr), UCUBE_HARNESS_KEEP=1 (keep the work directory).
#
# Exit status: 0 when every flow passed (or the harness was skipped), 1 when one failed, 2 when something it needs is
# missing.
set -uo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
repo="${UCUBE_VENDOR_SDK_REPO:-}"
if [ -z "$repo" ]; then
    echo "vendor-sdk harness: SKIPPED: UCUBE_VENDOR_SDK_REPO is not set. It names a copy of the vendor's repository" \
        "(YouTransactor-SAS/mPOS-SDK-Android), whose SDK libraries are never committed here; CI has none."
    exit 0
fi

missing() { echo "vendor-sdk harness: cannot run: $*" >&2; exit 2; }

for tool in git java javac keytool; do
    command -v "$tool" > /dev/null || missing "$tool is not installed (Debian: default-jdk-headless, git)"
done
if [ -d "$repo/.git" ]; then gitdir="$repo/.git"; else gitdir="$repo"; fi
git --git-dir="$gitdir" rev-parse --verify -q HEAD > /dev/null || missing "$repo is not a git repository"

# The SDK's third-party jars: Debian's names first, then a Maven repository.
find_jar() {
    local name
    for name in "$@"; do
        if [ -f "/usr/share/java/$name" ]; then echo "/usr/share/java/$name"; return 0; fi
    done
    local found
    found="$(find "$HOME/.m2/repository" -name "${1%.jar}*.jar" 2> /dev/null | sort | tail -1)"
    [ -n "$found" ] && { echo "$found"; return 0; }
    return 1
}
thirdparty=""
for spec in "com.android.json.jar:libandroid-json-java (org.json with Android's semantics)" \
    "commons-lang3.jar:libcommons-lang3-java" "commons-codec.jar:libcommons-codec-java" \
    "commons-io.jar:libcommons-io-java"; do
    jar="$(find_jar "${spec%%:*}")" || missing "${spec%%:*} not found in /usr/share/java or ~/.m2 (Debian: ${spec#*:})"
    thirdparty="$thirdparty:$jar"
done
thirdparty="${thirdparty#:}${UCUBE_HARNESS_CLASSPATH:+:$UCUBE_HARNESS_CLASSPATH}"

ucube="${UCUBE_BINARY:-$here/.build/debug/ucube}"
[ -x "$ucube" ] || missing "no ucube binary at $ucube (run swift build, or set UCUBE_BINARY)"

work="$(mktemp -d "${TMPDIR:-/tmp}/ucube-vendor-sdk.XXXXXX")"
sim_pid=""
tms_pid=""
cleanup() {
    [ -n "$sim_pid" ] && kill "$sim_pid" 2> /dev/null
    [ -n "$tms_pid" ] && kill "$tms_pid" 2> /dev/null
    if [ "${UCUBE_HARNESS_KEEP:-0}" = 1 ]; then echo "vendor-sdk harness: work directory kept: $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

# unzip_entry AAR ENTRY OUT: one entry of a zip file.
unzip_entry() {
    if command -v unzip > /dev/null; then
        unzip -p "$1" "$2" > "$3"
    else
        python3 -c 'import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]))' "$1" "$2" > "$3"
    fi
}

# The two SDK versions: label, commit of the vendor repository, libApp aar, SecureServiceAPI aar.
versions_table="3.5.13 b9ed30f sampleapp/libs/libApp-3.5.13-release.aar sampleapp/libs/SecureServiceAPI-1.2.10-release.aar
1.3.8.19 ac9ba36 sampleapp/libs/libApp-1.3.8.19-release.aar sampleapp/libs/SecureServiceAPI-1.1.6.20-release.aar"

# Compile the Android stand-ins once (they need no vendor class).
mkdir -p "$work/stubs"
javac -nowarn -d "$work/stubs" $(find "$here/Harness/vendor-sdk/android-stubs" -name '*.java') \
    || missing "the Android stand-ins do not compile"

# flow -> the simulator's card and cardholder for it (ucube simulate options).
flow_options() {
    case "$1" in
        pay-contact) echo "--card visa-contact" ;;
        pay-contactless) echo "--card mc-contactless-online" ;;
        pay-declined) echo "--card declined-aac" ;;
        pay-app-choice) echo "--card mc-two-apps --choices 2" ;;
        pay-online-pin) echo "--card mc-contactless-online-pin" ;;
        cancel | card-wait-recovery) echo "--card card-timeout" ;;
        pay-contactless-offline) echo "--card visa-contactless" ;;
        pay-contactless-declined) echo "--card visa-contactless-declined" ;;
        pay-offline-pin) echo "--card visa-offline-pin" ;;
        pay-contact-online-pin) echo "--card mc-online-pin" ;;
        pay-unsupported-card) echo "--card no-common-app" ;;
        pay-refused-card) echo "--card card-refused" ;;
        pay-card-removed) echo "--card card-removed" ;;
        pay-try-other-interface) echo "--card contactless-try-other" ;;
        steer-cards) echo "--card visa-contact" ;;
        *) echo "" ;;
    esac
}

all_flows="getinfo getinfo-50 pay-contact pay-contactless pay-declined pay-app-choice pay-online-pin card-wait-recovery
cancel reconnect
mdm-register mdm-config mdm-check-update mdm-update mdm-send-logs"

wanted_versions="${UCUBE_HARNESS_VERSIONS:-3.5.13 1.3.8.19}"

# More cards of docs/vendor-apps.md, each with the status the SDK should report (not among the issue's flows).
more_flows="pay-contactless-offline pay-contactless-declined pay-offline-pin pay-contact-online-pin pay-unsupported-card
pay-refused-card pay-card-removed pay-try-other-interface steer-cards"

flows="${UCUBE_HARNESS_FLOWS:-$all_flows $more_flows}"

# wait_for_line FILE PATTERN: the first line of FILE matching PATTERN, within 30 s.
wait_for_line() {
    local line
    for _ in $(seq 1 300); do
        line="$(grep -m1 -E "$2" "$1" 2> /dev/null)" && { echo "$line"; return 0; }
        sleep 0.1
    done
    return 1
}

# The TMS simulator for the MDM flows: the SDK asks https://api.<server>/MDM/jaxrs/…, with TLS 1.2, trusting the
# JVM's trust store: the server is "localhost:PORT", api.localhost resolves to 127.0.0.1 through a hosts file, and
# the simulator's CA is the only certificate of a trust store of the harness's own.
tms_server=""
jvm_tms_options=()
start_tms() {
    [ -n "$tms_server" ] && return 0
    mkdir -p "$work/tms"
    UCUBE_TMS_SIM_HOME="$work/tms" "$ucube" simulate --tms 127.0.0.1:0 > "$work/tms.out" 2> "$work/tms.err" &
    tms_pid=$!
    local listening ca port
    listening="$(wait_for_line "$work/tms.out" '^tms listening on ')" || { cat "$work/tms.err" >&2; return 1; }
    ca="$(wait_for_line "$work/tms.out" '^tms ca ')" || return 1
    port="${listening##*:}"
    ca="${ca#tms ca }"
    echo "127.0.0.1 api.localhost localhost" > "$work/hosts"
    rm -f "$work/truststore.p12"
    keytool -importcert -noprompt -alias ucube-tms-ca -file "$ca" -keystore "$work/truststore.p12" \
        -storetype PKCS12 -storepass harness > /dev/null 2>&1 || return 1
    tms_server="localhost:$port"
    jvm_tms_options=("-Djdk.net.hosts.file=$work/hosts" "-Djavax.net.ssl.trustStore=$work/truststore.p12"
        "-Djavax.net.ssl.trustStorePassword=harness" "-Djavax.net.ssl.trustStoreType=PKCS12")
}

failures=0
passes=0
while read -r label commit libapp secure; do
    case " $wanted_versions " in *" $label "*) ;; *) continue ;; esac
    dir="$work/$label"
    mkdir -p "$dir/classes"
    if ! git --git-dir="$gitdir" show "$commit:$libapp" > "$dir/libApp.aar" 2> /dev/null \
        || ! git --git-dir="$gitdir" show "$commit:$secure" > "$dir/secure.aar" 2> /dev/null; then
        for flow in $flows; do echo "FAIL $flow $label: the vendor repository has no $libapp at $commit"; done
        failures=$((failures + 1))
        continue
    fi
    unzip_entry "$dir/libApp.aar" classes.jar "$dir/libApp.jar" && unzip_entry "$dir/secure.aar" classes.jar "$dir/secure.jar" \
        || missing "cannot extract classes.jar from the $label aars"
    classpath="$dir/libApp.jar:$dir/secure.jar:$work/stubs:$thirdparty"
    if ! javac -nowarn -d "$dir/classes" -cp "$classpath" \
        "$here"/Harness/vendor-sdk/driver/ucube/harness/*.java 2> "$dir/javac.err"; then
        cat "$dir/javac.err" >&2
        for flow in $flows; do echo "FAIL $flow $label: the harness driver does not compile against this version"; done
        failures=$((failures + 1))
        continue
    fi
    for flow in $flows; do
        tms_args=()
        case "$flow" in
            mdm-*)
                if ! start_tms; then
                    echo "FAIL $flow $label: the TMS simulator did not start"
                    failures=$((failures + 1))
                    continue
                fi
                tms_args=("${jvm_tms_options[@]}") ;;
        esac
        state="$work/state-$label-$flow"
        # shellcheck disable=SC2046
        "$ucube" simulate --vendor-app --listen 127.0.0.1:0 --state-dir "$state" $(flow_options "$flow") \
            ${UCUBE_HARNESS_SIM_OPTIONS:-} \
            > "$dir/$flow.sim.out" 2> "$dir/$flow.sim.err" &
        sim_pid=$!
        if ! listening="$(wait_for_line "$dir/$flow.sim.out" '^listening on tcp://')"; then
            echo "FAIL $flow $label: the simulator did not start: $(tail -1 "$dir/$flow.sim.err")"
            failures=$((failures + 1))
            kill "$sim_pid" 2> /dev/null; wait "$sim_pid" 2> /dev/null; sim_pid=""
            continue
        fi
        address="${listening#listening on tcp://}"
        # UCUBE_BINARY: the steering flow runs `ucube sim` against this simulator while the app stays connected.
        result="$(UCUBE_BINARY="$ucube" java "${tms_args[@]}" -cp "$dir/classes:$classpath" ucube.harness.VendorSdkHarness \
            "$flow" "$address" "$tms_server" "$dir/app-$flow" 2> "$dir/$flow.jvm.err" | grep '^RESULT ' | tail -1)"
        kill "$sim_pid" 2> /dev/null; wait "$sim_pid" 2> /dev/null; sim_pid=""
        [ "${UCUBE_HARNESS_VERBOSE:-0}" = 1 ] && { cat "$dir/$flow.jvm.err" "$dir/$flow.sim.err" >&2; }
        case "$result" in
            "RESULT PASS "*) echo "PASS $flow $label: ${result#RESULT PASS }"; passes=$((passes + 1)) ;;
            "RESULT FAIL "*) echo "FAIL $flow $label: ${result#RESULT FAIL }"; failures=$((failures + 1)) ;;
            *) echo "FAIL $flow $label: no result from the JVM: $(grep -m1 -E 'Exception|Error' "$dir/$flow.jvm.err")"
               failures=$((failures + 1)) ;;
        esac
    done
done <<< "$versions_table"

echo "vendor-sdk harness: $passes passed, $failures failed"
[ "$failures" -eq 0 ]
