#!/usr/bin/env bash
# The lecture for a whole class: WORKERS `panel serve` processes behind nginx.
#
#   bash deploy/serve-prod.sh                         # or: make serve-prod
#   HOST=0.0.0.0 PORT=8080 WORKERS=2 bash deploy/serve-prod.sh
#
# Environment (all optional):
#   HOST       address nginx listens on (default 127.0.0.1; 0.0.0.0 for the classroom network)
#   PORT       port nginx listens on; the URL students open (default 5006)
#   WORKERS    number of panel serve processes (default: one per core, `nproc`)
#   BASE_PORT  first worker port; workers listen on 127.0.0.1:BASE_PORT.. (default PORT+1)
#   ORIGINS    extra host[:port] names students type in the address bar, space separated
#              (e.g. "aula.example.edu:8080"); localhost, 127.0.0.1, and with HOST=0.0.0.0 this
#              machine's name and addresses, on PORT, are always allowed
#   RUN_DIR    where the rendered nginx.conf, the logs and the pid files go (default: a new
#              directory under /tmp); nothing is written to /etc
#   VENV       the project's virtualenv (default .venv; `make serve-prod` creates it)
#   MAX_RESTARTS  how many times in all a dead worker is started again (default 5)
#   READY_TIMEOUT seconds each worker has to answer on /liveness at startup (default 120)
#   C04_CLASS_TOKEN  the lecturer link's token (?profesor=…, README "Modo clase"); a random one
#              is made and printed when it is not set
#   REDIS_PORT class mode's broker: Debian's redis-server, started here on 127.0.0.1:REDIS_PORT
#              (default PORT+100), no persistence; the workers share the class through it
#
# Several machines (README "Más de una máquina"): one front (nginx and Redis) and any number of
# worker machines, all with the same C04_CLASS_TOKEN.
#   ROLE       all (default: nginx, Redis and the workers here), front, or workers
#   UPSTREAMS  ROLE=front: the workers, "host:port host:port …" (they may start before or after)
#   REDIS_BIND ROLE=front: the address Redis listens on (default 127.0.0.1; the front's LAN
#              address when workers run elsewhere, then REDIS_PASSWORD is required)
#   REDIS_PASSWORD  Redis's password (requirepass); the workers' C04_REDIS_URL carries it
#   BIND       ROLE=workers: the address the workers listen on (default 127.0.0.1; this machine's
#              LAN address, reachable from the front only)
#   C04_REDIS_URL   ROLE=workers: the front's Redis, e.g. redis://:PASSWORD@10.0.0.1:5106/0
#              (PORT is then the front's port: the students' origin)
#
# Installs Debian's nginx and redis-server with apt-get when missing (the only step that needs
# root; as a normal user it asks through sudo). Runs in the foreground: Ctrl-C (or
# SIGTERM, or nginx dying) stops nginx and every worker it started; a worker that dies is started
# again (at most MAX_RESTARTS times).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

ROLE="${ROLE:-all}"
HOST="${HOST:-127.0.0.1}"
PORT="${PORT:-5006}"
WORKERS="${WORKERS:-$(nproc)}"
BASE_PORT="${BASE_PORT:-$((PORT + 1))}"
ORIGINS="${ORIGINS:-}"
VENV="${VENV:-.venv}"
READY_TIMEOUT="${READY_TIMEOUT:-120}" # seconds for every worker to answer
RUN_DIR="${RUN_DIR:-$(mktemp -d /tmp/clase04-prod.XXXXXX)}"
BIND="${BIND:-127.0.0.1}"
UPSTREAMS="${UPSTREAMS:-}"
REDIS_BIND="${REDIS_BIND:-127.0.0.1}"
REDIS_PASSWORD="${REDIS_PASSWORD:-}"

say() { printf '[serve-prod] %s\n' "$*"; }
die() {
	printf '[serve-prod] error: %s\n' "$*" >&2
	exit 1
}

[[ "$ROLE" =~ ^(all|front|workers)$ ]] || die "ROLE es all, front o workers (es '$ROLE')"
[[ "$WORKERS" =~ ^[1-9][0-9]*$ ]] || die "WORKERS debe ser un entero ≥ 1 (es '$WORKERS')"
is_loopback() { [[ "$1" == 127.* || "$1" == localhost || "$1" == ::1 ]]; }
if [[ "$ROLE" == front ]]; then
	[[ -n "$UPSTREAMS" ]] || die "ROLE=front necesita UPSTREAMS (\"host:puerto host:puerto …\" de los workers)"
	for u in $UPSTREAMS; do
		[[ "$u" =~ ^[A-Za-z0-9_.-]+:[0-9]+$ ]] || die "UPSTREAMS: '$u' no es host:puerto"
	done
	if ! is_loopback "$REDIS_BIND" && [[ -z "$REDIS_PASSWORD" ]]; then
		die "Redis en $REDIS_BIND (fuera de esta máquina) necesita REDIS_PASSWORD"
	fi
fi
# It goes into Redis's configuration and into the workers' redis:// URL: letters, digits, - and _.
if [[ -n "$REDIS_PASSWORD" && ! "$REDIS_PASSWORD" =~ ^[A-Za-z0-9_-]{16,}$ ]]; then
	die "REDIS_PASSWORD: 16 caracteres o más, solo letras, dígitos, - y _"
fi
if [[ "$ROLE" == workers ]]; then
	[[ -n "${C04_CLASS_TOKEN:-}" ]] || die "ROLE=workers necesita el C04_CLASS_TOKEN del frente"
	[[ -n "${C04_REDIS_URL:-}" ]] || die "ROLE=workers necesita C04_REDIS_URL (el Redis del frente)"
fi
[[ -x "$VENV/bin/python" ]] || die "no encuentro $VENV/bin/python: corre 'make serve-prod' (crea .venv)"

install_package() { # package
	say "$1 no está instalado: apt-get install -y $1"
	as_root=()
	if ((EUID != 0)); then
		command -v sudo >/dev/null 2>&1 ||
			die "instalar $1 necesita root: corre 'sudo apt-get install -y $1' y vuelve a intentar"
		as_root=(sudo)
	fi
	"${as_root[@]}" apt-get update -qq
	"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$1"
}
REDIS_PORT="${REDIS_PORT:-$((PORT + 100))}"
if [[ "$ROLE" != workers ]]; then # the front: nginx and the class's broker
	if ! command -v nginx >/dev/null 2>&1 && [[ ! -x /usr/sbin/nginx ]]; then install_package nginx; fi
	NGINX="$(command -v nginx || echo /usr/sbin/nginx)"
	if ! command -v redis-server >/dev/null 2>&1 && [[ ! -x /usr/bin/redis-server ]]; then
		install_package redis-server
	fi
	REDIS_SERVER="$(command -v redis-server || echo /usr/bin/redis-server)"
	# The lecturer's token: the environment's, or a new one (printed below, never logged).
	if [[ -z "${C04_CLASS_TOKEN:-}" ]]; then
		C04_CLASS_TOKEN="$("$VENV/bin/python" -c 'import secrets; print(secrets.token_urlsafe(18))')"
	fi
	C04_REDIS_URL="redis://${REDIS_PASSWORD:+:$REDIS_PASSWORD@}$REDIS_BIND:$REDIS_PORT/0"
fi
export C04_CLASS_TOKEN C04_REDIS_URL

port_busy() { ss -Hltn "sport = :$1" 2>/dev/null | grep -q .; } # any address of this machine
busy_check=()
[[ "$ROLE" != workers ]] && busy_check+=("$PORT" "$REDIS_PORT")
[[ "$ROLE" != front ]] && busy_check+=($(seq "$BASE_PORT" $((BASE_PORT + WORKERS - 1))))
for p in "${busy_check[@]}"; do
	if [[ "$ROLE" == workers ]]; then # several "machines" may share one box on 127.0.0.x
		ss -Hltn "src $BIND:$p" 2>/dev/null | grep -q . && die "el puerto $BIND:$p ya está en uso"
	else
		port_busy "$p" && die "el puerto $p ya está en uso (cambia PORT o BASE_PORT)"
	fi
done

# What the browser sends as Origin must be allowed on every worker.
origins=("localhost:$PORT" "127.0.0.1:$PORT")
if [[ "$HOST" != 127.0.0.1 && "$HOST" != localhost ]]; then
	if [[ "$HOST" == 0.0.0.0 ]]; then
		if command -v hostname >/dev/null 2>&1; then
			origins+=("$(hostname):$PORT")
			for ip in $(hostname -I 2>/dev/null || true); do
				[[ "$ip" == *:* ]] || origins+=("$ip:$PORT") # IPv4 only: host:port is ambiguous for v6
			done
		fi
	else
		origins+=("$HOST:$PORT")
	fi
fi
for o in $ORIGINS; do origins+=("$o"); done
origin_args=()
for o in "${origins[@]}"; do origin_args+=(--allow-websocket-origin "$o"); done

mkdir -p "$RUN_DIR/tmp" "$RUN_DIR/cache"
# Each student holds a websocket in nginx and in a worker: lift the soft limit on open files (1024
# on many desktops, below nginx's worker_connections) up to 8192 where the hard limit allows it.
nofile_hard="$(ulimit -Hn)"
nofile_want=8192
[[ "$nofile_hard" != unlimited ]] && ((nofile_hard < nofile_want)) && nofile_want="$nofile_hard"
nofile_soft="$(ulimit -Sn)"
if [[ "$nofile_soft" != unlimited ]] && ((nofile_soft < nofile_want)); then
	ulimit -Sn "$nofile_want" 2>/dev/null || true
fi
declare -A worker_pid=() # port -> pid
nginx_pid=""
redis_pid=""
cleanup() {
	trap - EXIT INT TERM
	local pids=("${worker_pid[@]}" $nginx_pid $redis_pid) pid alive
	for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
	# Bounded wait (10 s), then KILL whatever is left.
	for _ in $(seq 50); do
		alive=0
		for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
		((alive)) || break
		sleep 0.2
	done
	for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
	wait 2>/dev/null || true
	say "detenido (registros en $RUN_DIR)"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

start_redis() {
	# On REDIS_BIND only (127.0.0.1 unless workers run elsewhere, then with a password), nothing
	# written to disk: a class lives while the broker lives. The password goes through stdin
	# (a config file read from "-"), never on a command line that `ps` shows.
	{
		[[ -n "$REDIS_PASSWORD" ]] && printf 'requirepass "%s"\n' "$REDIS_PASSWORD"
		true
	} | "$REDIS_SERVER" - --bind "$REDIS_BIND" --port "$REDIS_PORT" --protected-mode yes \
		--save "" --appendonly no --dir "$RUN_DIR" --logfile "$RUN_DIR/redis.log" --daemonize no \
		>>"$RUN_DIR/redis.out" 2>&1 &
	redis_pid=$!
}

wait_redis() {
	local deadline=$((SECONDS + 20))
	until "$VENV/bin/python" -c "import os, redis; redis.Redis.from_url(os.environ['C04_REDIS_URL'], socket_timeout=1).ping()" 2>/dev/null; do
		kill -0 "$redis_pid" 2>/dev/null || die "redis-server terminó ($RUN_DIR/redis.log, $RUN_DIR/redis.out)"
		((SECONDS < deadline)) || die "redis-server no respondió en $REDIS_BIND:$REDIS_PORT"
		sleep 0.2
	done
}

start_worker() { # port
	# `make serve`'s command and environment (clase04 serve: dashboards/serving.py, which execs
	# panel serve in place, so $! is the worker's pid), a class worker's flags (--prod), behind a
	# proxy.
	PYTHONUNBUFFERED=1 "$VENV/bin/clase04" serve --address "$BIND" --port "$1" \
		"${origin_args[@]}" --prod --use-xheaders >>"$RUN_DIR/worker-$1.log" 2>&1 &
	worker_pid[$1]=$!
}

wait_ready() { # port timeout-seconds
	local deadline=$((SECONDS + $2))
	until curl -fs -o /dev/null --max-time 2 "http://$BIND:$1/liveness"; do
		kill -0 "${worker_pid[$1]}" 2>/dev/null ||
			die "el worker de $1 terminó: $(tail -n 5 "$RUN_DIR/worker-$1.log")"
		((SECONDS < deadline)) || die "el worker de $1 no respondió en $2 s"
		sleep 0.5
	done
}

if [[ "$ROLE" != workers ]]; then
	start_redis
	wait_redis
	say "intermediario de la clase: redis-server, pid $redis_pid, $REDIS_BIND:$REDIS_PORT"
fi

ports=""
[[ "$ROLE" != front ]] && ports=$(seq "$BASE_PORT" $((BASE_PORT + WORKERS - 1)))
upstreams=""
n=0
for p in $ports; do
	start_worker "$p"
	upstreams+="        server $BIND:$p;"$'\n'
	n=$((n + 1))
	say "worker $n/$WORKERS: pid ${worker_pid[$p]}, $BIND:$p (registro $RUN_DIR/worker-$p.log)"
done
for p in $ports; do wait_ready "$p" "$READY_TIMEOUT"; done
# Warm each worker up: with --reuse-sessions the first page request builds the session that the
# page is rendered from (and imports what a session needs), so the first student does not wait.
for p in $ports; do
	curl -fs -o /dev/null --max-time 60 "http://$BIND:$p/" || say "aviso: el worker de $p no sirvió la página de calentamiento"
done
if [[ "$ROLE" == workers ]]; then
	say "listo: $WORKERS workers en $BIND (frente en el puerto $PORT; Redis del frente); Ctrl-C para detener"
fi
if [[ "$ROLE" == front ]]; then
	for u in $UPSTREAMS; do
		upstreams+="        server $u;"$'\n'
		# Workers may come up after the front: nginx skips one that refuses until it answers.
		curl -fs -o /dev/null --max-time 2 "http://$u/liveness" || say "aviso: el worker $u aún no responde"
	done
	say "workers en otras máquinas: $UPSTREAMS"
fi

if [[ "$ROLE" != workers ]]; then
template="$(<deploy/nginx.conf.template)"
conf="${template//@RUN_DIR@/$RUN_DIR}"
listen="$HOST:$PORT"
[[ "$HOST" == *:* ]] && listen="[$HOST]:$PORT" # an IPv6 address
conf="${conf//@LISTEN@/$listen}"
user_directive="# user: nginx runs as the user who started the script"
((EUID == 0)) && user_directive="user root;"
conf="${conf//@USER@/$user_directive}"
conf="${conf//@UPSTREAM_SERVERS@/${upstreams%$'\n'}}"
printf '%s\n' "$conf" >"$RUN_DIR/nginx.conf"
"$NGINX" -t -q -e "$RUN_DIR/error.log" -p "$RUN_DIR" -c "$RUN_DIR/nginx.conf" ||
	die "la configuración de nginx no es válida ($RUN_DIR/nginx.conf)"
"$NGINX" -e "$RUN_DIR/error.log" -p "$RUN_DIR" -c "$RUN_DIR/nginx.conf" -g 'daemon off;' &
nginx_pid=$!

# nginx itself answering (any HTTP status): a front's workers may still be starting on their
# machines (a 502 until one answers; on a loaded 2-core box a worker took 20-30 s to start, and
# waiting for /liveness through them killed a front whose workers were only late).
deadline=$((SECONDS + 20))
until [[ "$(curl -s -o /dev/null --max-time 2 -w '%{http_code}' "http://127.0.0.1:$PORT/liveness")" != 000 ]]; do
	kill -0 "$nginx_pid" 2>/dev/null || die "nginx terminó ($RUN_DIR/error.log)"
	((SECONDS < deadline)) || die "nginx no respondió en 127.0.0.1:$PORT ($RUN_DIR/error.log)"
	sleep 0.2
done
shown_host="$HOST"
[[ "$HOST" == 0.0.0.0 ]] && shown_host="$(hostname -I 2>/dev/null | awk '{print $1}' || true)"
n_upstreams="$(printf '%s' "$upstreams" | grep -c server)"
say "listo: Clase 04 en http://${shown_host:-localhost}:$PORT/ (nginx → $n_upstreams workers; Ctrl-C para detener)"
say "orígenes permitidos: ${origins[*]}"
say "enlace del profesor (no lo proyecte ni lo comparta): http://${shown_host:-localhost}:$PORT/?profesor=$C04_CLASS_TOKEN"
fi

# Supervise until a signal arrives. nginx dying stops everything; a worker that dies is started
# again (its students reload the page and land on a live worker meanwhile: nginx skips a worker
# that refuses connections), at most MAX_RESTARTS times in all.
MAX_RESTARTS="${MAX_RESTARTS:-5}"
restarts=0
set +e
while :; do
	done_pid=""
	# shellcheck disable=SC2086  # the front has no workers, a worker machine no nginx or Redis
	wait -n -p done_pid $nginx_pid $redis_pid "${worker_pid[@]}"
	status=$?
	[[ -n "$done_pid" ]] || {
		sleep 1 # not a child of ours that ended: never spin
		continue
	}
	if [[ "$done_pid" == "$nginx_pid" ]]; then
		say "nginx terminó (código $status); deteniendo todo"
		exit 1
	fi
	if [[ "$done_pid" == "$redis_pid" ]]; then
		# The workers reconnect by themselves; the lecturer's page publishes its state again.
		if ((restarts >= MAX_RESTARTS)); then
			say "redis-server terminó (código $status) y ya hubo $restarts reinicios; deteniendo todo"
			exit 1
		fi
		restarts=$((restarts + 1))
		start_redis
		say "redis-server terminó (código $status); reinicio $restarts/$MAX_RESTARTS: pid $redis_pid"
		continue
	fi
	for p in $ports; do
		[[ "${worker_pid[$p]}" == "$done_pid" ]] || continue
		if ((restarts >= MAX_RESTARTS)); then
			say "el worker de $p terminó (código $status) y ya hubo $restarts reinicios; deteniendo todo"
			exit 1
		fi
		restarts=$((restarts + 1))
		start_worker "$p"
		say "el worker de $p terminó (código $status); reinicio $restarts/$MAX_RESTARTS: pid ${worker_pid[$p]}"
		break
	done
done
