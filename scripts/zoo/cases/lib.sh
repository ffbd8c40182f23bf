# The zoo's cases, sourced by gen.sh: this file's helpers, then one file per
# kind of path (cases/*.sh). Each case_<name> sets what it is and the codes
# it expects FIRST (from what it configures), then builds its path and runs k6.
# mustNot defaults to every other code (rest): a code that is neither must nor
# may is wrong on that case.
# shellcheck shell=bash disable=SC2034

# Every code the zoo judges: the analyzer's codes (bench/diagnose/doc.go), then the codes the zoo
# proposes (see the zoo's README).
CODES="healthy server-slow path-latency tls-handshake-slow connect-slow connection-wait hidden-connection-cost
upload-limited download-limited rate-limited tool-blocked generator-saturated closed-model-backlog throughput-ceiling
upstream-failing accept-queue"

# rest: every code that is neither in MUST nor in MAY.
rest() {
	local c o=""
	for c in $CODES; do
		[[ " $MUST $MAY " == *" $c "* ]] || o+="$c "
	done
	echo "${o% }"
}

url() { echo "http://127.0.0.1:$1/${2:-}"; }

# format NAME MUST MAY WHY: the lists of one format that cannot carry the
# evidence of the whole run (its mustNot: every other code).
format() {
	local MUST=$2 MAY=$3
	FORMATS+="${FORMATS:+$'\n'}$1: {must: $(yaml_list "$MUST"), may: $(yaml_list "$MAY"), mustNot: $(yaml_list "$(rest)"), why: $(yaml_str "$4")}"
}

# summaries MUST MAY WHY: the same lists for both summaries (export and handleSummary).
summaries() { format summary-export "$@"; format handle-summary "$@"; }

# nginx_proxy EXTRA_HTTP LOCATION_BODY: nginx on P_NGINX proxying to the fake server.
nginx_proxy() {
	nginx_up "upstream origin { server 127.0.0.1:$P_SERVER; keepalive 16; }
  $1
  server {
    listen 127.0.0.1:$P_NGINX;
    location / {
      $2
      proxy_pass http://origin;
      proxy_http_version 1.1;
      proxy_set_header Connection \"\";
    }
  }"
}

# nginx_tls EXTRA_LOCATION: nginx terminating TLS on P_NGINX_TLS before the fake server.
nginx_tls() {
	nginx_up "upstream origin { server 127.0.0.1:$P_SERVER; keepalive 16; }
  server {
    listen 127.0.0.1:$P_NGINX_TLS ssl;
    ssl_certificate $WORK/tls/cert.pem;
    ssl_certificate_key $WORK/tls/key.pem;
    location / {
      $1
      proxy_pass http://origin;
      proxy_http_version 1.1;
      proxy_set_header Connection \"\";
    }
  }"
}
