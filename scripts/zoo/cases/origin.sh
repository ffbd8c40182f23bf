# The zoo's plain Go origin (internal/cmd/zoo-origin): transport failures, an unreported worker pool, an accept queue.
# shellcheck shell=bash disable=SC2034

case_origin_reset() {
	WHAT="Go origin that reads each request then resets the connection (RST), constant-arrival-rate 40/s 5 s: no HTTP answer at all"
	MUST="upstream-failing"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-arrival-rate"
	origin -mode reset
	k6run get.js -- "TARGET=$(url $P_ORIGIN)" EXEC=constant-arrival-rate RATE=40 DUR=5s VUS=5 MAX_VUS=20
}

case_origin_eof() {
	WHAT="Go origin that reads each request then closes without answering (EOF), constant-arrival-rate 40/s 5 s"
	MUST="upstream-failing"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-arrival-rate"
	origin -mode eof
	k6run get.js -- "TARGET=$(url $P_ORIGIN)" EXEC=constant-arrival-rate RATE=40 DUR=5s VUS=5 MAX_VUS=20
}

case_origin_garbage() {
	WHAT="Go origin that reads each request then answers bytes that are not HTTP (an SSH banner), constant-arrival-rate 40/s 5 s"
	MUST="upstream-failing"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-arrival-rate"
	origin -mode garbage
	k6run get.js -- "TARGET=$(url $P_ORIGIN)" EXEC=constant-arrival-rate RATE=40 DUR=5s VUS=5 MAX_VUS=20
}

case_origin_cut_body() {
	WHAT="Go origin that answers 200 with Content-Length 65536, sends 1 KiB of the body and closes, constant-arrival-rate 40/s 5 s"
	MUST="upstream-failing"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-arrival-rate"
	origin -mode cut
	k6run get.js -- "TARGET=$(url $P_ORIGIN)" EXEC=constant-arrival-rate RATE=40 DUR=5s VUS=5 MAX_VUS=20
}

case_origin_accept_backlog_no_reuse() {
	WHAT="Go origin (10 ms) with listen backlog 2 accepting one connection per 25 ms, noConnectionReuse, constant-vus 10 6 s: the accept queue and dropped SYNs"
	MUST="accept-queue"; MAY="closed-model-backlog connect-slow"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	origin -mode ok -work 10ms -backlog 2 -accept-every 25ms
	k6run get.js -- "TARGET=$(url $P_ORIGIN)" EXEC=constant-vus VUS=10 DUR=6s NO_REUSE=1
}

case_origin_pool_backlog() {
	WHAT="Go origin with 4 workers x 50 ms whose Server-Timing times the work only (80/s), constant-vus 20 6 s: latency ~ 20 / 80 = 250 ms, server_time 50 ms"
	MUST="closed-model-backlog"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	origin -mode ok -work 50ms -workers 4
	k6run get.js -- "TARGET=$(url $P_ORIGIN)" EXEC=constant-vus VUS=20 DUR=6s
}

case_origin_pool_sweep() {
	WHAT="Go origin with 4 workers x 50 ms (unreported queue), ramping-vus sweep 2,4,8,16 VUs x 2 s: throughput flat at ~80/s from 4 VUs, latency ~ VUs / 80"
	MUST="closed-model-backlog throughput-ceiling"; MUSTNOT=$(rest)
	ANALYZE="executor: ramping-vus"
	summaries "closed-model-backlog" "throughput-ceiling" "a summary has no steps: the flat throughput across VUs is not in it"
	origin -mode ok -work 50ms -workers 4
	k6run get.js -- "TARGET=$(url $P_ORIGIN)" EXEC=ramping-vus STEPS=2,4,8,16 HOLD=2s
}
