#!/usr/bin/env bash
# A Quiver cluster of hosts on one machine: one Linux network namespace per host (scheduler,
# executors, client) on a private bridge, each link optionally rate-limited (tc tbf) and each
# executor optionally held to a CPU share (cgroup v1 cpu quota and/or taskset). Every process binds
# its namespace's address; loopback stays down in every namespace. See README.md beside this file.
set -euo pipefail

readonly PREFIX=qvh                      # every namespace, link and cgroup made here starts so
readonly SUBNET_BASE=10.231              # runs take the first free 10.231.X.0/24
readonly SCHEDULER_PORT=50050 SCHEDULER_HTTP=8080 EXECUTOR_PORT=50061 EXECUTOR_HTTP=8081
readonly CGROUP_CPU=/sys/fs/cgroup/cpu
readonly LOCK_FILE=/run/lock/quiver-local-hosts.lock
readonly REGISTRY=/run/quiver-local-hosts   # ID -> its run folder, whatever --state-dir was
SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
readonly SCRIPT_DIR
REPO=$(cd "$SCRIPT_DIR/../.." && pwd)

usage() {
  cat <<EOF
Usage: $(basename "$0") COMMAND [OPTIONS]

Commands:
  check                       Exit 0 when this machine can make hosts, else say why (exit 2).
  up [OPTIONS]                Make the hosts, start the scheduler and executors, wait until every
                              executor registered; print key=value lines (id, scheduler, ...).
  with [OPTIONS] -- CMD...    up, run CMD in the client host, then down (always).
  run [--id ID] -- CMD...     Run CMD in the client host (\$QUIVER_SCHEDULER holds the scheduler's
                              address, \$QVH_ID the run id).
  exec [--id ID] HOST -- CMD  Run CMD in HOST: scheduler, client or executor-N.
  kill-executor [--id ID] N [--signal SIG]   Signal executor N (default KILL) and wait for its end.
  start-executor [--id ID] N  Start executor N again (after kill-executor) and wait for it.
  status [--id ID]            Show the hosts, their processes and links.
  down [--id ID | --all] [--keep-logs]
                              Stop the processes, delete namespaces, links, cgroups and the run's
                              folder (logs, work dirs; --keep-logs keeps it); --all takes down
                              every run, leftovers of killed ones included.

Options of up and with:
  --id ID                 Run id, 1-6 of [a-z0-9] (default: random); names are $PREFIX-ID-*.
  --executors N           Executor hosts (default: 2).
  --link RATE             Rate of every host's link, each way: e.g. 1gbit, 10gbit, 500mbit, or
                          unlimited (default: unlimited).
  --executor-cpus X       CPU quota of each executor (cgroup v1 cpu.cfs_quota_us), e.g. 0.5 or 1.
  --executor-cpuset SPEC  taskset for executors: a CPU list (e.g. 0 or 0-1) for all, or spread
                          (executor N on CPU (N-1) mod the machine's CPUs).
  --executor-cores N      Task slots per executor (default: the quota rounded up, else the CPUs
                          of its cpuset, else all CPUs).
  --executor-memory SIZE  Executor --memory (default: 1g).
  --executor-heap SIZE    Executor JVM -Xmx (default: 1g).
  --scheduler-heap SIZE   Scheduler JVM -Xmx (default: 512m).
  --java-opts "OPTS"      Extra JVM options of every server.
  --scheduler-args "ARGS" Extra scheduler flags.   --executor-args "ARGS"  Extra executor flags.
  --executor-allowed-paths P  Executors' --allowed-paths (default: /, every local file).
  --subnet A.B.C          Use A.B.C.0/24 (default: the first 10.231.X.0/24 not routed here).
  --state-dir DIR         Folder of run folders: logs, work dirs, pids (default: /tmp/quiver-local-hosts).
  --timeout SECONDS       Bound on the start (default: 180).

Addresses: root namespace (the bridge) .1, scheduler .2 (gRPC $SCHEDULER_PORT, HTTP $SCHEDULER_HTTP),
client .3, executor N .(10+N) (Flight $EXECUTOR_PORT, HTTP $EXECUTOR_HTTP). Needs root and iproute2.
EOF
}

die() {
  echo "local-hosts: $*" >&2
  exit 1
}
say() { echo "local-hosts: $*" >&2; }

# ---- options ------------------------------------------------------------------------------------

ID="${QVH_ID:-}"
EXECUTORS=2
LINK=unlimited
EXECUTOR_CPUS=""
EXECUTOR_CPUSET=""
EXECUTOR_CORES=""
EXECUTOR_MEMORY=1g
EXECUTOR_HEAP=1g
SCHEDULER_HEAP=512m
JAVA_OPTS_EXTRA=""
SCHEDULER_ARGS_EXTRA=""
EXECUTOR_ARGS_EXTRA=""
# Local files the executors' SQL may read: this harness's hosts share the machine and its data
# folders (executors otherwise refuse local files; their work directories stay refused).
EXECUTOR_ALLOWED_PATHS=/
SUBNET=""
STATE_DIR="${QVH_STATE_DIR:-/tmp/quiver-local-hosts}"
TIMEOUT=180
ALL=0
KEEP_STATE=0
SIGNAL=KILL
POSITIONAL=()
COMMAND_ARGS=()
LOG_START=()

parse_options() {
  while (($#)); do
    case "$1" in
      --id) ID="$2"; shift 2 ;;
      --executors) EXECUTORS="$2"; shift 2 ;;
      --link) LINK="$2"; shift 2 ;;
      --executor-cpus) EXECUTOR_CPUS="$2"; shift 2 ;;
      --executor-cpuset) EXECUTOR_CPUSET="$2"; shift 2 ;;
      --executor-cores) EXECUTOR_CORES="$2"; shift 2 ;;
      --executor-memory) EXECUTOR_MEMORY="$2"; shift 2 ;;
      --executor-heap) EXECUTOR_HEAP="$2"; shift 2 ;;
      --scheduler-heap) SCHEDULER_HEAP="$2"; shift 2 ;;
      --java-opts) JAVA_OPTS_EXTRA="$2"; shift 2 ;;
      --scheduler-args) SCHEDULER_ARGS_EXTRA="$2"; shift 2 ;;
      --executor-args) EXECUTOR_ARGS_EXTRA="$2"; shift 2 ;;
      --executor-allowed-paths) EXECUTOR_ALLOWED_PATHS="$2"; shift 2 ;;
      --subnet) SUBNET="$2"; shift 2 ;;
      --state-dir) STATE_DIR="$2"; shift 2 ;;
      --timeout) TIMEOUT="$2"; shift 2 ;;
      --signal) SIGNAL="$2"; shift 2 ;;
      --all) ALL=1; shift ;;
      --keep-logs) KEEP_STATE=1; shift ;;
      -h | --help) usage; exit 0 ;;
      --) shift; COMMAND_ARGS=("$@"); return ;;
      -*) die "unknown option $1 (see --help)" ;;
      *) POSITIONAL+=("$1"); shift ;;
    esac
  done
}

validate_up_options() {
  [[ "$ID" =~ ^[a-z0-9]{1,6}$ ]] || die "--id must be 1-6 of [a-z0-9], got '$ID'"
  if ! [[ "$EXECUTORS" =~ ^[0-9]+$ ]] || ((EXECUTORS < 1 || EXECUTORS > 99)); then
    die "--executors must be 1..99, got '$EXECUTORS'"
  fi
  [[ "$TIMEOUT" =~ ^[0-9]+$ ]] || die "--timeout must be seconds, got '$TIMEOUT'"
  if [[ "$LINK" != unlimited ]]; then
    rate_bytes_per_second "$LINK" >/dev/null
  fi
  if [[ -n "$EXECUTOR_CPUS" ]]; then
    if ! [[ "$EXECUTOR_CPUS" =~ ^[0-9]*\.?[0-9]+$ ]] ||
      ! awk -v c="$EXECUTOR_CPUS" 'BEGIN{exit !(c>=0.01)}'; then
      die "--executor-cpus must be a number >= 0.01, got '$EXECUTOR_CPUS'"
    fi
    [[ -w "$CGROUP_CPU/cgroup.procs" ]] ||
      die "--executor-cpus needs the cgroup v1 cpu controller at $CGROUP_CPU (use --executor-cpuset)"
  fi
  if [[ -n "$EXECUTOR_CPUSET" && "$EXECUTOR_CPUSET" != spread ]]; then
    [[ "$EXECUTOR_CPUSET" =~ ^[0-9,-]+$ ]] || die "--executor-cpuset must be spread or a CPU list"
  fi
  if [[ -n "$EXECUTOR_CPUSET" ]]; then
    command -v taskset >/dev/null || die "--executor-cpuset needs taskset (util-linux)"
  fi
  if [[ -n "$SUBNET" ]]; then
    [[ "$SUBNET" =~ ^[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$ ]] || die "--subnet must be A.B.C"
  fi
}

# A tc rate (e.g. 1gbit, 500mbit, 10gbit) in bytes per second; tc's units are decimal.
rate_bytes_per_second() {
  local rate="${1,,}"
  [[ "$rate" =~ ^([0-9]+(\.[0-9]+)?)(bit|kbit|mbit|gbit|tbit)$ ]] ||
    die "--link must be unlimited or a rate such as 1gbit, 500mbit, 10gbit; got '$1'"
  local mult
  case "${BASH_REMATCH[3]}" in
    bit) mult=1 ;; kbit) mult=1e3 ;; mbit) mult=1e6 ;; gbit) mult=1e9 ;; tbit) mult=1e12 ;;
  esac
  awk -v n="${BASH_REMATCH[1]}" -v m="$mult" 'BEGIN{printf "%d\n", n*m/8}'
}

# ---- names --------------------------------------------------------------------------------------

ns_of() { echo "$PREFIX-$ID-$1"; }      # namespace of host sched, client, e1, e2, ...
veth_of() { echo "$PREFIX-$ID-$1"; }    # its link's end in the root namespace (<= 15 chars)
bridge() { echo "$PREFIX-$ID-br"; }
run_dir() { run_dir_of "$ID"; }
run_dir_of() {
  if [[ -L "$REGISTRY/$1" ]]; then readlink "$REGISTRY/$1"; else echo "$STATE_DIR/$1"; fi
}
cgroup_dir() { echo "$CGROUP_CPU/$PREFIX-$ID"; }

# The short host key of a host name: scheduler -> sched, client -> client, executor-N -> eN.
host_key() {
  case "$1" in
    scheduler | sched) echo sched ;;
    client) echo client ;;
    executor-[0-9]* | e[0-9]*) echo "e${1##*[!0-9]}" ;;
    [0-9]*) echo "e$1" ;;
    *) die "no host '$1': use scheduler, client or executor-N" ;;
  esac
}

# Finds the run when --id is not given: the only one whose namespaces exist.
resolve_id() {
  if [[ -n "$ID" ]]; then
    return
  fi
  mapfile -t ids < <(existing_ids)
  case "${#ids[@]}" in
    0) die "no run is up (no $PREFIX-* namespace)" ;;
    1) ID="${ids[0]}" ;;
    *) die "several runs are up (${ids[*]}): pass --id" ;;
  esac
}

existing_ids() {
  {
    ip netns list 2>/dev/null | awk '{print $1}' | sed -n "s/^$PREFIX-\([a-z0-9]*\)-.*/\1/p"
    ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | sed 's/@.*//' |
      sed -n "s/^$PREFIX-\([a-z0-9]*\)-.*/\1/p"
    if [[ -d "$CGROUP_CPU" ]]; then
      find "$CGROUP_CPU" -maxdepth 1 -name "$PREFIX-*" -printf '%f\n' | sed "s/^$PREFIX-//"
    fi
    if [[ -d "$REGISTRY" ]]; then
      find "$REGISTRY" -mindepth 1 -maxdepth 1 -printf '%f\n'
    fi
  } | sort -u
}

# The value of KEY in the key=value file that up wrote.
env_value() {
  local f
  f="$(run_dir)/env"
  [[ -f "$f" ]] || die "run $ID has no $f"
  sed -n "s/^$1=//p" "$f"
}

# ---- checks -------------------------------------------------------------------------------------

check() {
  ((EUID == 0)) || { echo "needs root (network namespaces, veth, tc)"; return 2; }
  local tool
  for tool in ip tc nsenter awk; do
    command -v "$tool" >/dev/null || { echo "needs $tool (iproute2, util-linux)"; return 2; }
  done
  local probe="${PREFIX}p$$" # no dash after the prefix: down never takes it for a run
  if ! ip netns add "$probe" 2>/dev/null; then
    echo "cannot create a network namespace (ip netns add failed)"
    return 2
  fi
  local ok=0
  ip link add "${probe}a" type veth peer name "${probe}b" netns "$probe" 2>/dev/null || ok=$?
  ip link del "${probe}a" 2>/dev/null || true
  ip netns del "$probe" 2>/dev/null || true
  if ((ok != 0)); then
    echo "cannot create a veth pair into a namespace"
    return 2
  fi
  echo "ok"
}

# ---- up -----------------------------------------------------------------------------------------

pick_subnet() {
  if [[ -n "$SUBNET" ]]; then
    if ip -4 route show | grep -q "^$SUBNET\.0/24 "; then
      die "subnet $SUBNET.0/24 is already routed here"
    fi
    echo "$SUBNET"
    return
  fi
  local used x
  used=$(ip -4 route show; ip -4 addr show)
  for x in $(seq 1 254); do
    if ! grep -q "$SUBNET_BASE\.$x\." <<<"$used"; then
      echo "$SUBNET_BASE.$x"
      return
    fi
  done
  die "no free $SUBNET_BASE.X.0/24"
}

# tc tbf on one end of a link: rate-limits what leaves through it.
limit_link() {
  local netns="$1" dev="$2" bytes burst
  bytes=$(rate_bytes_per_second "$LINK")
  # A burst of ~4 ms at the rate, at least 128 KiB so a 64 KiB GSO segment passes unsplit.
  burst=$((bytes / 250))
  ((burst < 131072)) && burst=131072
  ip ${netns:+-n "$netns"} link set dev "$dev" txqueuelen 10000
  tc ${netns:+-n "$netns"} qdisc replace dev "$dev" root tbf rate "$LINK" burst "$burst" latency 50ms
}

# Makes host KEY: its namespace, a veth pair onto the bridge, address A.B.C.OCTET, link limits.
make_host() {
  local key="$1" octet="$2" netns veth
  netns=$(ns_of "$key")
  veth=$(veth_of "$key")
  ip netns add "$netns"
  ip link add "$veth" type veth peer name eth0 netns "$netns"
  ip link set "$veth" master "$(bridge)" up
  ip -n "$netns" addr add "$NET.$octet/24" dev eth0
  ip -n "$netns" link set eth0 up
  if [[ "$LINK" != unlimited ]]; then
    limit_link "" "$veth"       # into the host
    limit_link "$netns" eth0    # out of the host
  fi
}

make_network() {
  exec 9>"$LOCK_FILE"
  flock -w 60 9 || die "another run holds $LOCK_FILE"
  if [[ -e "/run/netns/$(ns_of sched)" ]] || ip link show "$(bridge)" >/dev/null 2>&1; then
    die "run id $ID is in use: pick another --id or run down --id $ID"
  fi
  NET=$(pick_subnet)
  say "run $ID on $NET.0/24"
  ip link add "$(bridge)" type bridge
  ip addr add "$NET.1/24" dev "$(bridge)"
  ip link set "$(bridge)" up
  make_host sched 2
  make_host client 3
  local n
  for ((n = 1; n <= EXECUTORS; n++)); do
    make_host "e$n" $((10 + n))
  done
  flock -u 9
  exec 9>&-
}

java_bin() {
  if [[ -n "${JAVA_HOME:-}" ]]; then echo "$JAVA_HOME/bin/java"; else command -v java; fi
}

# Starts CMD in host KEY, detached (own session), logging to RUN/KEY.log; the pid goes to KEY.pid.
# With a cgroup, the process joins it before exec, so its whole JVM is under the quota.
start_in_host() {
  local key="$1" cgroup="$2" cpuset="$3"
  shift 3
  local log pre=()
  log="$(run_dir)/$key.log"
  [[ -n "$cpuset" ]] && pre=(taskset -c "$cpuset")
  (
    if [[ -n "$cgroup" ]]; then echo "$BASHPID" >"$cgroup/cgroup.procs"; fi
    # nsenter switches only the network namespace: the JVM still sees /sys/fs/cgroup (its quota).
    exec setsid nsenter --net="/run/netns/$(ns_of "$key")" -- "${pre[@]}" "$@" </dev/null >>"$log" 2>&1
  ) &
  echo $! >"$(run_dir)/$key.pid"
}

# Waits until LOG, past its first FROM bytes, has a line matching PATTERN while process PID lives;
# false on timeout or death.
await_log() {
  local log="$1" pattern="$2" pid="$3" from="${4:-0}" deadline=$((SECONDS + TIMEOUT))
  while ((SECONDS < deadline)); do
    if tail -c +$((from + 1)) "$log" 2>/dev/null | grep -q -- "$pattern"; then return 0; fi
    if ! kill -0 "$pid" 2>/dev/null; then
      local status=0
      wait "$pid" 2>/dev/null || status=$? # a child of this shell: its exit status (128+N: signal N)
      say "process $pid ended with status $status; the end of $log:"
      tail -n 30 "$log" >&2 || true
      return 1
    fi
    sleep 0.2
  done
  say "no '$pattern' in $log within $TIMEOUT s; its end:"
  tail -n 30 "$log" >&2 || true
  return 1
}

start_scheduler() {
  local java_opts scheduler_args
  read -r -a java_opts <<<"$JAVA_OPTS_EXTRA"
  read -r -a scheduler_args <<<"$SCHEDULER_ARGS_EXTRA"
  mkdir -p "$(run_dir)/tmp-sched"
  start_in_host sched "" "" "$JAVA" "-Xmx$SCHEDULER_HEAP" "-Djava.io.tmpdir=$(run_dir)/tmp-sched" \
    "${java_opts[@]}" -jar "$REPO/scheduler/target/quiver-scheduler.jar" \
    --host "$NET.2" --port "$SCHEDULER_PORT" --http-port "$SCHEDULER_HTTP" "${scheduler_args[@]}"
  await_log "$(run_dir)/sched.log" "Quiver scheduler listening on" "$(cat "$(run_dir)/sched.pid")" ||
    die "the scheduler did not start"
}

executor_cgroup() {
  local n="$1" dir
  [[ -z "$EXECUTOR_CPUS" ]] && return
  dir="$(cgroup_dir)/e$n"
  mkdir -p "$dir"
  echo 100000 >"$dir/cpu.cfs_period_us"
  awk -v c="$EXECUTOR_CPUS" 'BEGIN{printf "%d\n", c*100000}' >"$dir/cpu.cfs_quota_us"
  echo "$dir"
}

executor_cpuset() {
  local n="$1"
  case "$EXECUTOR_CPUSET" in
    "") ;;
    spread) echo $(((n - 1) % $(nproc))) ;;
    *) echo "$EXECUTOR_CPUSET" ;;
  esac
}

# Task slots of executor N: --executor-cores, else its CPU quota rounded up, else the CPUs
# of its cpuset (more slots than CPUs would only make tasks wait on each other), else all.
executor_cores() {
  local n="${1:-1}" list
  if [[ -n "$EXECUTOR_CORES" ]]; then
    echo "$EXECUTOR_CORES"
  elif [[ -n "$EXECUTOR_CPUS" ]]; then
    awk -v c="$EXECUTOR_CPUS" 'BEGIN{n=int(c); if (n<c) n++; print n}'
  elif list=$(executor_cpuset "$n") && [[ -n "$list" ]]; then
    awk -v l="$list" 'BEGIN{k=split(l, p, ","); n=0; for (i=1; i<=k; i++) {
      if (split(p[i], r, "-") == 2) n += r[2] - r[1] + 1; else n++ }; print n}'
  else
    nproc
  fi
}

# Starts executor N (again) and returns once its log says it registered.
start_executor() {
  local n="$1" key="e$1" ip java_opts executor_args work cgroup
  ip="$NET.$((10 + n))"
  read -r -a java_opts <<<"$JAVA_OPTS_EXTRA"
  read -r -a executor_args <<<"$EXECUTOR_ARGS_EXTRA"
  work="$(run_dir)/work-$key"
  mkdir -p "$work" "$(run_dir)/tmp-$key"
  cgroup=$(executor_cgroup "$n")
  # A restarted executor appends to the log; its wait reads only what it wrote.
  LOG_START[n]=$(stat -c %s "$(run_dir)/$key.log" 2>/dev/null || echo 0)
  start_in_host "$key" "$cgroup" "$(executor_cpuset "$n")" "$JAVA" "-Xmx$EXECUTOR_HEAP" \
    "-Djava.io.tmpdir=$(run_dir)/tmp-$key" "${java_opts[@]}" \
    -jar "$REPO/executor/target/quiver-executor.jar" \
    --scheduler "$NET.2:$SCHEDULER_PORT" --host "$ip" --advertise-host "$ip" \
    --port "$EXECUTOR_PORT" --http-port "$EXECUTOR_HTTP" --id "executor-$n" \
    --work-dir "$work" --cores "$(executor_cores "$n")" --memory "$EXECUTOR_MEMORY" \
    --allowed-paths "$EXECUTOR_ALLOWED_PATHS" "${executor_args[@]}"
}

await_executor() {
  local n="$1"
  await_log "$(run_dir)/e$n.log" "registered with scheduler" "$(cat "$(run_dir)/e$n.pid")" \
    "${LOG_START[n]:-0}" ||
    die "executor $n did not register"
}

write_env() {
  local n
  {
    echo "id=$ID"
    echo "subnet=$NET.0/24"
    echo "root=$NET.1"
    echo "scheduler=$NET.2:$SCHEDULER_PORT"
    echo "scheduler_http=http://$NET.2:$SCHEDULER_HTTP"
    echo "client=$NET.3"
    echo "executors=$EXECUTORS"
    for ((n = 1; n <= EXECUTORS; n++)); do
      echo "executor_$n=$NET.$((10 + n)):$EXECUTOR_PORT"
    done
    echo "link=$LINK"
    echo "executor_cpus=${EXECUTOR_CPUS:-none}"
    echo "executor_cpuset=${EXECUTOR_CPUSET:-none}"
    echo "executor_cores=$(executor_cores)"
    echo "state=$(run_dir)"
  } >"$(run_dir)/env"
  # What start-executor needs to start one the same way.
  declare -p NET EXECUTORS LINK EXECUTOR_CPUS EXECUTOR_CPUSET EXECUTOR_CORES EXECUTOR_MEMORY \
    EXECUTOR_HEAP JAVA_OPTS_EXTRA EXECUTOR_ARGS_EXTRA EXECUTOR_ALLOWED_PATHS JAVA REPO TIMEOUT \
    >"$(run_dir)/options"
}

up() {
  [[ -z "$ID" ]] && ID=$(tr -dc 'a-z0-9' </dev/urandom | head -c 4 || true)
  validate_up_options
  local why
  why=$(check) || die "$why"
  JAVA=$(java_bin) || die "no java on PATH and no JAVA_HOME"
  local jar
  for jar in scheduler/target/quiver-scheduler.jar executor/target/quiver-executor.jar; do
    [[ -f "$REPO/$jar" ]] || die "$REPO/$jar is missing: build with mvn -B -ntp -DskipTests package"
  done
  if existing_ids | grep -qx "$ID"; then
    die "run id $ID is in use: pick another --id or run down --id $ID"
  fi
  mkdir -p "$STATE_DIR"
  STATE_DIR=$(cd "$STATE_DIR" && pwd)
  [[ -e "$(run_dir)" ]] && die "$(run_dir) exists: run down --id $ID first"
  mkdir -p "$(run_dir)" "$REGISTRY"
  ln -sfn "$(run_dir)" "$REGISTRY/$ID"
  UP_DONE=0
  trap 'on_exit' EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  make_network
  write_env
  start_scheduler
  local n
  for ((n = 1; n <= EXECUTORS; n++)); do
    start_executor "$n"
  done
  for ((n = 1; n <= EXECUTORS; n++)); do
    await_executor "$n"
  done
  UP_DONE=1
  say "up: scheduler $NET.2:$SCHEDULER_PORT, $EXECUTORS executor(s), link $LINK; logs in $(run_dir)"
  cat "$(run_dir)/env"
}

# On any failure (or INT/TERM) during up, or always after with, leave nothing behind.
on_exit() {
  local rc=$?
  if [[ "${UP_DONE:-0}" != 1 || "${DOWN_AFTER:-0}" == 1 ]]; then
    trap - EXIT INT TERM
    KEEP_STATE=$((rc != 0))
    down_id "$ID" || true
    if ((rc != 0)); then say "failed (exit $rc); logs kept in $(run_dir)"; fi
  fi
  exit "$rc"
}

# ---- run, exec, kill, start ---------------------------------------------------------------------

exec_in() {
  local key="$1"
  shift
  (($#)) || die "no command: pass it after --"
  local netns scheduler
  scheduler=$(env_value scheduler)
  netns=$(ns_of "$key")
  [[ -e "/run/netns/$netns" ]] || die "no host $key in run $ID"
  QUIVER_SCHEDULER="$scheduler" QVH_ID="$ID" exec nsenter --net="/run/netns/$netns" -- "$@"
}

kill_executor() {
  local n="$1" pid
  [[ -f "$(run_dir)/e$n.pid" ]] || die "run $ID has no executor $n"
  pid=$(cat "$(run_dir)/e$n.pid")
  kill -0 "$pid" 2>/dev/null || die "executor $n (pid $pid) is not running"
  kill -s "$SIGNAL" "$pid"
  if [[ "$SIGNAL" == KILL || "$SIGNAL" == 9 ]]; then
    local deadline=$((SECONDS + 10))
    while kill -0 "$pid" 2>/dev/null; do
      ((SECONDS < deadline)) || die "executor $n (pid $pid) survived SIGKILL for 10 s"
      sleep 0.1
    done
  fi
  say "sent SIG$SIGNAL to executor $n (pid $pid)"
}

restart_executor() {
  local n="$1" pid
  # shellcheck disable=SC1091
  source "$(run_dir)/options"
  ((n >= 1 && n <= EXECUTORS)) || die "run $ID has executors 1..$EXECUTORS"
  pid=$(cat "$(run_dir)/e$n.pid")
  if kill -0 "$pid" 2>/dev/null; then die "executor $n (pid $pid) is still running"; fi
  start_executor "$n"
  await_executor "$n"
  say "executor $n started again"
}

status() {
  local key pid state
  echo "run $ID: scheduler $(env_value scheduler), link $(env_value link)," \
    "executor cpus $(env_value executor_cpus), cpuset $(env_value executor_cpuset)," \
    "state $(run_dir)"
  for key in sched client $(seq -f 'e%g' 1 "$(env_value executors)"); do
    pid=""
    state="-"
    if [[ -f "$(run_dir)/$key.pid" ]]; then
      pid=$(cat "$(run_dir)/$key.pid")
      if kill -0 "$pid" 2>/dev/null; then state="running (pid $pid)"; else state="ended (pid $pid)"; fi
    fi
    printf '  %-7s %-16s %-22s %s\n' "$key" "$(ip -n "$(ns_of "$key")" -4 -o addr show dev eth0 2>/dev/null |
      awk '{print $4}')" "$(tc qdisc show dev "$(veth_of "$key")" 2>/dev/null | head -n 1 |
      awk '{print ($2 == "tbf" ? "link " $8 : "link unlimited")}')" "$state"
    # How often the quota held the executor back: throttled periods and time.
    if [[ -f "$(cgroup_dir)/$key/cpu.stat" ]]; then
      awk '/^nr_periods|^nr_throttled|^throttled_time/{v[$1]=$2}
        END{printf "          cpu quota: throttled in %d of %d periods, %.1f s\n",
          v["nr_throttled"], v["nr_periods"], v["throttled_time"]/1e9}' "$(cgroup_dir)/$key/cpu.stat"
    fi
  done
}

# ---- down ---------------------------------------------------------------------------------------

any_alive() {
  local pid
  for pid; do
    if kill -0 "$pid" 2>/dev/null; then return 0; fi
  done
  return 1
}

# Stops every process of run ID's namespaces, then deletes namespaces, links, cgroups, state.
down_id() {
  local id="$1" netns pids=() deadline
  local -a spaces
  mapfile -t spaces < <(ip netns list 2>/dev/null | awk '{print $1}' | grep "^$PREFIX-$id-" || true)
  for netns in "${spaces[@]}"; do
    mapfile -t -O "${#pids[@]}" pids < <(ip netns pids "$netns" 2>/dev/null || true)
  done
  if ((${#pids[@]})); then
    kill -CONT "${pids[@]}" 2>/dev/null || true # a stopped JVM runs no shutdown hook
    kill -TERM "${pids[@]}" 2>/dev/null || true
    deadline=$((SECONDS + 15))
    while ((SECONDS < deadline)) && any_alive "${pids[@]}"; do sleep 0.2; done
    kill -KILL "${pids[@]}" 2>/dev/null || true
    deadline=$((SECONDS + 10))
    while ((SECONDS < deadline)) && any_alive "${pids[@]}"; do sleep 0.1; done
    if any_alive "${pids[@]}"; then say "processes of run $id survived SIGKILL: ${pids[*]}"; fi
  fi
  for netns in "${spaces[@]}"; do
    ip netns del "$netns" 2>/dev/null || say "could not delete namespace $netns"
  done
  local link
  while read -r link; do
    ip link del "$link" 2>/dev/null || true
  done < <(ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | sed 's/@.*//' | grep "^$PREFIX-$id-" || true)
  local cg="$CGROUP_CPU/$PREFIX-$id"
  if [[ -d "$cg" ]]; then
    find "$cg" -mindepth 1 -maxdepth 1 -type d -exec rmdir {} \; 2>/dev/null || true
    rmdir "$cg" 2>/dev/null || say "could not remove cgroup $cg (processes left in it?)"
  fi
  local dir
  dir=$(run_dir_of "$id")
  if [[ -d "$dir" && -f "$dir/env" && "$KEEP_STATE" != 1 ]]; then
    rm -rf "$dir"
  fi
  rm -f "$REGISTRY/$id"
  say "run $id is down"
}

down() {
  if ((ALL)); then
    local id
    for id in $(existing_ids); do down_id "$id"; done
    return
  fi
  resolve_id
  down_id "$ID"
}

# ---- main ---------------------------------------------------------------------------------------

main() {
  (($#)) || { usage >&2; exit 1; }
  local command="$1"
  shift
  parse_options "$@"
  case "$command" in
    check) check ;;
    up)
      ((${#POSITIONAL[@]} == 0)) || die "up takes no arguments: ${POSITIONAL[*]}"
      up
      ;;
    with)
      ((${#COMMAND_ARGS[@]})) || die "with needs a command after --"
      DOWN_AFTER=1
      up
      local rc=0
      QUIVER_SCHEDULER="$NET.2:$SCHEDULER_PORT" QVH_ID="$ID" \
        nsenter --net="/run/netns/$(ns_of client)" -- "${COMMAND_ARGS[@]}" || rc=$?
      exit "$rc"
      ;;
    run)
      resolve_id
      exec_in client "${COMMAND_ARGS[@]}"
      ;;
    exec)
      ((${#POSITIONAL[@]} == 1)) || die "exec takes one host: scheduler, client or executor-N"
      resolve_id
      exec_in "$(host_key "${POSITIONAL[0]}")" "${COMMAND_ARGS[@]}"
      ;;
    kill-executor | start-executor)
      if ((${#POSITIONAL[@]} != 1)) || ! [[ "${POSITIONAL[0]}" =~ ^[0-9]+$ ]]; then
        die "$command takes the executor's number"
      fi
      resolve_id
      if [[ "$command" == kill-executor ]]; then
        kill_executor "${POSITIONAL[0]}"
      else
        restart_executor "${POSITIONAL[0]}"
      fi
      ;;
    status)
      resolve_id
      status
      ;;
    down) down ;;
    -h | --help | help) usage ;;
    *) die "unknown command $command (see --help)" ;;
  esac
}

main "$@"
