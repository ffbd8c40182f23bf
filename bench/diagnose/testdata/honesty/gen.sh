#!/bin/sh
# Makes the honesty cases (see README.md): real k6 v1.8.1 through a path on
# 127.0.0.1:32080-32099 with one cause injected on purpose.
#   MB=/path/to/middlebench K6=/opt/k6bin/k6 sh gen.sh CASE...
set -eu
MB=${MB:-middlebench}
K6=${K6:-k6}
HERE=$(cd "$(dirname "$0")" && pwd)
TAGS=status,method,name,scenario,expected_response,error,error_code,proto
PIDS=""
stop() { for p in $PIDS; do kill "$p" 2>/dev/null || true; done; for p in $PIDS; do wait "$p" 2>/dev/null || true; done; PIDS=""; }
trap stop EXIT
bg() { "$@" >/dev/null 2>&1 & PIDS="$PIDS $!"; }
ready() { i=0; until curl -s -o /dev/null "$1"; do i=$((i+1)); [ $i -lt 100 ] || { echo "not ready: $1" >&2; exit 1; }; sleep 0.1; done; }
# k6run DIR FORMATS -e … : runs k6 in DIR, keeping the summary export, the
# NDJSON (gz), the CSV (gz) and the printed summary as FORMATS asks.
k6run() {
	dir=$1; shift; formats=$1; shift
	mkdir -p "$dir"; cd "$dir"
	set -- "$@" --summary-export=summary-export.json
	case $formats in *points*) set -- "$@" --out json=points.ndjson.gz --system-tags=$TAGS;; esac
	case $formats in *csv*) set -- "$@" --out csv=points.csv.gz;; esac
	"$K6" run --no-color "$@" "$HERE/k6.js" > summary.txt 2>/dev/null
	case $formats in *text*) ;; *) rm -f summary.txt;; esac
	gzip -f summary-export.json
	cd "$HERE"
}
reset() { curl -s -X POST -o /dev/null "$1/_mb/reset"; }
stats() { curl -s "$1/_mb/stats" > "$2/server-stats.json"; }

case_bimodal() { # a server whose own time has two modes, no queue anywhere
	bg "$MB" server --listen 127.0.0.1:32080 --work 20ms; ready http://127.0.0.1:32080/_mb/health
	reset http://127.0.0.1:32080
	k6run bimodal points,csv,text -e TARGET=http://127.0.0.1:32080/ -e EXEC=constant-vus -e VUS=10 -e DUR=8s -e WORK=bimodal
	stats http://127.0.0.1:32080 bimodal; stop
}
case_fast() { # sub-millisecond requests, 4 VUs
	bg "$MB" server --listen 127.0.0.1:32080; ready http://127.0.0.1:32080/_mb/health
	reset http://127.0.0.1:32080
	k6run fast summary -e TARGET=http://127.0.0.1:32080/ -e EXEC=constant-vus -e VUS=4 -e DUR=5s
	stats http://127.0.0.1:32080 fast; stop
}
case_cache() { # nginx caches the origin's answer, Server-Timing included, and replays it
	bg "$MB" server --listen 127.0.0.1:32080 --work 100ms; ready http://127.0.0.1:32080/_mb/health
	mkdir -p /tmp/honesty-nginx/logs /tmp/honesty-nginx/cache
	sed "s#<dir>#/tmp/honesty-nginx#g" "$HERE/cache/nginx.conf" > /tmp/honesty-nginx/nginx.conf
	bg nginx -c /tmp/honesty-nginx/nginx.conf -p /tmp/honesty-nginx -g 'daemon off;'; ready http://127.0.0.1:32081/
	reset http://127.0.0.1:32080
	k6run cache summary -e TARGET=http://127.0.0.1:32081/ -e EXEC=constant-vus -e VUS=2 -e DUR=6s
	stats http://127.0.0.1:32080 cache; stop
}
case_maxconn() { # haproxy lets 2 connections at a time reach a server with no worker limit
	bg "$MB" server --listen 127.0.0.1:32080 --work 20ms; ready http://127.0.0.1:32080/_mb/health
	bg haproxy -db -f "$HERE/maxconn/haproxy.cfg"; ready http://127.0.0.1:32082/
	reset http://127.0.0.1:32080
	k6run maxconn points -e TARGET=http://127.0.0.1:32082/ -e EXEC=constant-vus -e VUS=20 -e DUR=8s
	stats http://127.0.0.1:32080 maxconn; stop
}
case_openslow() { # an arrival rate of 15/s against a server that slows down
	bg "$MB" server --listen 127.0.0.1:32080; ready http://127.0.0.1:32080/_mb/health
	reset http://127.0.0.1:32080
	k6run openslow points -e TARGET=http://127.0.0.1:32080/ -e EXEC=constant-arrival-rate -e RATE=15 -e DUR=20s -e VUS=1 -e MAX_VUS=40 -e WORK=degrade
	stats http://127.0.0.1:32080 openslow; stop
}
case_openalloc() { # the same with 40 VUs allocated before the start: no drops, vus_max constant
	bg "$MB" server --listen 127.0.0.1:32080; ready http://127.0.0.1:32080/_mb/health
	reset http://127.0.0.1:32080
	k6run openalloc points -e TARGET=http://127.0.0.1:32080/ -e EXEC=constant-arrival-rate -e RATE=15 -e DUR=20s -e VUS=40 -e MAX_VUS=40 -e WORK=degrade
	stats http://127.0.0.1:32080 openalloc; stop
}
case_ratelimit() { # middlebench proxy's limiter at 2/s, 429
	bg "$MB" server --listen 127.0.0.1:32080 --work 5ms; ready http://127.0.0.1:32080/_mb/health
	bg "$MB" proxy --listen 127.0.0.1:32083 --upstream http://127.0.0.1:32080 --stage ratelimit:rate=2/s; ready http://127.0.0.1:32083/
	reset http://127.0.0.1:32080
	k6run ratelimit summary -e TARGET=http://127.0.0.1:32083/ -e EXEC=constant-vus -e VUS=4 -e DUR=8s
	stats http://127.0.0.1:32080 ratelimit; stop
}
case_accept() { # middlebench proxy's accept stage: 40 connections/s, backlog 2, a new connection per request
	bg "$MB" server --listen 127.0.0.1:32080 --work 10ms; ready http://127.0.0.1:32080/_mb/health
	bg "$MB" proxy --listen 127.0.0.1:32084 --upstream http://127.0.0.1:32080 --stage accept:rate=40/s,backlog=2; ready http://127.0.0.1:32084/
	reset http://127.0.0.1:32080
	k6run accept points -e TARGET=http://127.0.0.1:32084/ -e EXEC=constant-vus -e VUS=10 -e DUR=6s -e NO_REUSE=1
	stats http://127.0.0.1:32080 accept; stop
}
for c in "$@"; do echo "== $c"; "case_$c"; done
