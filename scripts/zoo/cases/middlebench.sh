# middlebench's own boxes (proxy --stage) and fake-server options (workers, write/read caps, CPU).
# shellcheck shell=bash disable=SC2034

case_mb_waf_delay() {
	WHAT="middlebench proxy waf:delay=200ms before the fake server (50 ms), constant-vus 3 5 s"
	MUST="path-latency"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	mbserver --work 50ms
	mbproxy $P_SERVER --stage waf:delay=200ms
	k6run get.js -- "TARGET=$(url $P_BOX)" EXEC=constant-vus VUS=3 DUR=5s
}

case_mb_tls_handshake_no_reuse() {
	WHAT="middlebench proxy tls:handshakeDelay=150ms before the fake server (50 ms), noConnectionReuse (a handshake per request), constant-vus 3 6 s"
	MUST="tls-handshake-slow"; MAY="hidden-connection-cost"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	mbserver --work 50ms
	mbproxy $P_SERVER --stage tls:handshakeDelay=150ms
	k6run get.js --insecure-skip-tls-verify -- "TARGET=https://127.0.0.1:$P_BOX/" EXEC=constant-vus VUS=3 DUR=6s NO_REUSE=1
}

case_mb_ratelimit_429() {
	WHAT="middlebench proxy ratelimit:rate=20/s,window=1s (fixed window, 429) before the fake server (50 ms), constant-arrival-rate 50/s 5 s"
	MUST="rate-limited"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-arrival-rate"
	mbserver --work 50ms
	mbproxy $P_SERVER --stage ratelimit:rate=20/s,window=1s
	k6run get.js -- "TARGET=$(url $P_BOX)" EXEC=constant-arrival-rate RATE=50 DUR=5s VUS=20 MAX_VUS=20
}

case_mb_ratelimit_429_no_server_stats() {
	WHAT="as mb-ratelimit-429 (fixed window 20/s, 429, fake server 50 ms, constant-arrival-rate 50/s 5 s), analysed without the server's stats: k6's own server_time trend is the only server view"
	MUST="rate-limited"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-arrival-rate"
	NO_STATS=1
	NOTE="server-stats.json is saved but not passed: the case is a user without an APM"
	mbserver --work 50ms
	mbproxy $P_SERVER --stage ratelimit:rate=20/s,window=1s
	k6run get.js -- "TARGET=$(url $P_BOX)" EXEC=constant-arrival-rate RATE=50 DUR=5s VUS=20 MAX_VUS=20
}

case_mb_read_rate_upload() {
	WHAT="fake server --read-rate 1MiB/s shared by all connections (20 ms), 256 KiB uploads (POST), constant-vus 2 8 s: each upload ~0.5 s (E2's cap)"
	MUST="upload-limited"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	mbserver --work 20ms --read-rate 1MiB/s
	k6run upload.js -- "TARGET=$(url $P_SERVER)" EXEC=constant-vus VUS=2 DUR=8s BODY_KB=256
}

case_mb_uablock_403() {
	WHAT="middlebench proxy uablock (default patterns: k6's User-Agent) before the fake server (which sees nothing), constant-arrival-rate 40/s 5 s"
	MUST="tool-blocked"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-arrival-rate"
	mbserver --work 50ms
	mbproxy $P_SERVER --stage uablock
	k6run get.js -- "TARGET=$(url $P_BOX)" EXEC=constant-arrival-rate RATE=40 DUR=5s VUS=5 MAX_VUS=20
}

case_mb_bandwidth_per_connection() {
	WHAT="middlebench proxy bandwidth:down=128KiB/s,perConnection=true before the fake server (20 ms, 64 KiB bodies), constant-vus 3 8 s: ~0.5 s per body"
	MUST="download-limited"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	mbserver --work 20ms --size 64KiB
	mbproxy $P_SERVER --stage bandwidth:down=128KiB/s,perConnection=true
	k6run get.js -- "TARGET=$(url $P_BOX)" EXEC=constant-vus VUS=3 DUR=8s
}

case_mb_accept_rate_no_reuse() {
	WHAT="middlebench proxy accept:rate=40/s,backlog=2 before the fake server (10 ms), noConnectionReuse, constant-vus 10 6 s: each request waits to be accepted"
	MUST="accept-queue"; MAY="closed-model-backlog connect-slow"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	mbserver --work 10ms
	mbproxy $P_SERVER --stage accept:rate=40/s,backlog=2
	k6run get.js -- "TARGET=$(url $P_BOX)" EXEC=constant-vus VUS=10 DUR=6s NO_REUSE=1
}

case_mb_workers_backlog() {
	WHAT="fake server --workers 4 --work 50ms (80/s; its queue reported as queue;dur and in its stats), constant-vus 20 6 s: latency ~ 20 / 80 = 250 ms"
	MUST="closed-model-backlog"; MUSTNOT=$(rest) # server-slow: s003 forbids it (the work stays 50 ms; the wait is the queue)
	ANALYZE="executor: constant-vus"
	mbserver --workers 4 --work 50ms
	k6run get.js -- "TARGET=$(url $P_SERVER)" EXEC=constant-vus VUS=20 DUR=6s
}

case_mb_workers_sweep() {
	WHAT="fake server --workers 4 --work 50ms (80/s, its queue reported), ramping-vus sweep 2,4,8,16 x 2 s: throughput flat from 4 VUs, latency ~ VUs / 80 (seed 003's closed sweep, small)"
	MUST="closed-model-backlog throughput-ceiling"; MUSTNOT=$(rest) # no server-slow, as s003
	ANALYZE="executor: ramping-vus"
	summaries "closed-model-backlog" "throughput-ceiling" "a summary has no steps: the flat throughput across VUs is not in it"
	mbserver --workers 4 --work 50ms
	k6run get.js -- "TARGET=$(url $P_SERVER)" EXEC=ramping-vus STEPS=2,4,8,16 HOLD=2s
}

case_mb_write_rate_shared() {
	WHAT="fake server --write-rate 2MiB/s shared by all connections, 20 ms, 128 KiB bodies, constant-vus 8 6 s: 16 bodies/s at most, each ~0.5 s"
	MUST="download-limited"; MAY="closed-model-backlog throughput-ceiling"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	mbserver --work 20ms --size 128KiB --write-rate 2MiB/s
	k6run get.js -- "TARGET=$(url $P_SERVER)" EXEC=constant-vus VUS=8 DUR=6s
}

case_mb_write_rate_sweep() {
	WHAT="fake server --write-rate 2MiB/s shared, 20 ms, 128 KiB bodies, ramping-vus sweep 1,2,4,8 x 2 s: throughput stops at 16/s while receiving grows"
	MUST="download-limited throughput-ceiling"; MAY="closed-model-backlog"; MUSTNOT=$(rest)
	ANALYZE="executor: ramping-vus"
	summaries "download-limited" "throughput-ceiling closed-model-backlog" "a summary has no steps: the ceiling across VUs is not in it"
	mbserver --work 20ms --size 128KiB --write-rate 2MiB/s
	k6run get.js -- "TARGET=$(url $P_SERVER)" EXEC=ramping-vus STEPS=1,2,4,8 HOLD=2s
}

case_mb_cpu_bound_sweep() {
	WHAT="GOMAXPROCS=64 fake server --cpu 30ms pinned to CPU 1 (k6 on CPU 0), ramping-vus sweep 1,2,4,8 x 2 s: the server's own time grows with load (~30 ms to ~240 ms)"
	MUST="server-slow"; MAY="throughput-ceiling closed-model-backlog"; MUSTNOT=$(rest)
	ANALYZE="executor: ramping-vus"
	SERVER_CPU=1 mbserver GOMAXPROCS=64 --cpu 30ms
	TASKSET=0 k6run get.js -- "TARGET=$(url $P_SERVER)" EXEC=ramping-vus STEPS=1,2,4,8 HOLD=2s
}

case_mb_open_model_cliff() {
	WHAT="fake server --workers 10 --work 50ms (200/s), ramping-arrival-rate 100,150,200,250,300/s x 2 s (20..100 VUs): past 200/s the server's queue grows and k6 runs out of VUs"
	MUST="throughput-ceiling"; MUSTNOT=$(rest) # an open model (no closed backlog); the work stays 50 ms (not server-slow)
	ANALYZE="executor: ramping-arrival-rate"
	NOTE="dropped_iterations here come from VUs held by the server's queue (server_queue, queue_time), not from the generator's CPU"
	mbserver --workers 10 --work 50ms
	k6run get.js -- "TARGET=$(url $P_SERVER)" EXEC=ramping-arrival-rate STEPS=100,150,200,250,300 HOLD=2s VUS=20 MAX_VUS=100
}
