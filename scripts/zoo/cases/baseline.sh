# Baselines: the fake server straight (one per executor), the server alone slow, and a saturated generator.
# shellcheck shell=bash disable=SC2034

NO_SUMMARY_STATUS="a summary has no status or error codes"


case_healthy_constant_vus() {
	WHAT="fake server (50 ms of work) straight, constant-vus 3 VUs 5 s"
	MUST="healthy"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	mbserver --work 50ms
	k6run get.js -- "TARGET=$(url $P_SERVER)" EXEC=constant-vus VUS=3 DUR=5s
}

case_healthy_ramping_vus() {
	WHAT="fake server (50 ms) straight, ramping-vus sweep 1,2,4,8 VUs x 2 s: throughput grows with VUs"
	MUST="healthy"; MUSTNOT=$(rest)
	ANALYZE="executor: ramping-vus"
	mbserver --work 50ms
	k6run get.js -- "TARGET=$(url $P_SERVER)" EXEC=ramping-vus STEPS=1,2,4,8 HOLD=2s
}

case_healthy_constant_arrival_rate() {
	WHAT="fake server (50 ms) straight, constant-arrival-rate 40/s 5 s (5..20 VUs)"
	MUST="healthy"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-arrival-rate"
	mbserver --work 50ms
	k6run get.js -- "TARGET=$(url $P_SERVER)" EXEC=constant-arrival-rate RATE=40 DUR=5s VUS=5 MAX_VUS=20
}

case_healthy_large_bodies() {
	WHAT="fake server (20 ms) straight with 1 MiB bodies and no cap (loopback), constant-vus 3 5 s: big downloads that nothing limits"
	MUST="healthy"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	mbserver --work 20ms --size 1MiB
	k6run get.js -- "TARGET=$(url $P_SERVER)" EXEC=constant-vus VUS=3 DUR=5s
}

case_healthy_shared_iterations() {
	WHAT="fake server (50 ms) straight, shared-iterations 250 iterations over 3 VUs (~4 s)"
	MUST="healthy"; MUSTNOT=$(rest)
	ANALYZE="executor: shared-iterations"
	mbserver --work 50ms
	k6run get.js -- "TARGET=$(url $P_SERVER)" EXEC=shared-iterations VUS=3 ITERS=250
}

case_healthy_per_vu_iterations() {
	WHAT="fake server (50 ms) straight, per-vu-iterations 80 iterations per VU, 3 VUs (~4 s)"
	MUST="healthy"; MUSTNOT=$(rest)
	ANALYZE="executor: per-vu-iterations"
	mbserver --work 50ms
	k6run get.js -- "TARGET=$(url $P_SERVER)" EXEC=per-vu-iterations VUS=3 ITERS=80
}

case_healthy_ramping_arrival_rate() {
	WHAT="fake server (50 ms) straight, ramping-arrival-rate 10,20,40,60/s x 2 s (5..30 VUs)"
	MUST="healthy"; MUSTNOT=$(rest)
	ANALYZE="executor: ramping-arrival-rate"
	mbserver --work 50ms
	k6run get.js -- "TARGET=$(url $P_SERVER)" EXEC=ramping-arrival-rate STEPS=10,20,40,60 HOLD=2s VUS=5 MAX_VUS=30
}

case_server_slow_250() {
	WHAT="fake server 250 ms of work straight (the compound case's server alone), constant-vus 3 6 s"
	MUST="server-slow"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	mbserver --work 250ms
	k6run get.js -- "TARGET=$(url $P_SERVER)" EXEC=constant-vus VUS=3 DUR=6s
}

case_gen_saturated_constant_rate() {
	WHAT="k6 pinned to CPU 0 (taskset -c 0) burning 8 ms of CPU per iteration (burn.js), constant-arrival-rate 150/s 6 s (5..10 VUs), fake server 10 ms on CPU 1: k6 can do ~100/s"
	MUST="generator-saturated"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-arrival-rate"
	SERVER_CPU=1 mbserver --work 10ms
	TASKSET=0 k6run burn.js -- "TARGET=$(url $P_SERVER)" EXEC=constant-arrival-rate RATE=150 DUR=6s VUS=5 MAX_VUS=10 CPU_MS=8
}

case_gen_saturated_ramping_rate() {
	WHAT="k6 pinned to CPU 0 burning 8 ms of CPU per iteration, ramping-arrival-rate 40,80,120,160/s x 2 s (5..10 VUs), fake server 10 ms on CPU 1: the knee near 100/s"
	MUST="generator-saturated"; MUSTNOT=$(rest)
	ANALYZE="executor: ramping-arrival-rate"
	SERVER_CPU=1 mbserver --work 10ms
	TASKSET=0 k6run burn.js -- "TARGET=$(url $P_SERVER)" EXEC=ramping-arrival-rate STEPS=40,80,120,160 HOLD=2s VUS=5 MAX_VUS=10 CPU_MS=8
}
