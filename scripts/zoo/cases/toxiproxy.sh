# toxiproxy's toxics in front of the fake server: latency, bandwidth, limit_data, timeout, reset_peer, slow_close, slicer.
# shellcheck shell=bash disable=SC2034

case_toxi_latency_down() {
	WHAT="toxiproxy latency 150 ms jitter 30 ms downstream, fake server 50 ms, constant-vus 3 5 s"
	MUST="path-latency"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	mbserver --work 50ms
	toxiproxy $P_SERVER
	toxic '{"name":"lat","type":"latency","stream":"downstream","attributes":{"latency":150,"jitter":30}}'
	k6run get.js -- "TARGET=$(url $P_TOXI)" EXEC=constant-vus VUS=3 DUR=5s
}

case_toxi_latency_up() {
	WHAT="toxiproxy latency 150 ms jitter 30 ms upstream (the request is late), fake server 50 ms, constant-vus 3 5 s"
	MUST="path-latency"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	mbserver --work 50ms
	toxiproxy $P_SERVER
	toxic '{"name":"lat","type":"latency","stream":"upstream","attributes":{"latency":150,"jitter":30}}'
	k6run get.js -- "TARGET=$(url $P_TOXI)" EXEC=constant-vus VUS=3 DUR=5s
}

case_toxi_bandwidth_down() {
	WHAT="toxiproxy bandwidth 128 KB/s per connection downstream, fake server 20 ms with 64 KiB bodies, constant-vus 3 8 s: ~0.5 s per body, the first chunk late too"
	MUST="download-limited"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	mbserver --work 20ms --size 64KiB
	toxiproxy $P_SERVER
	toxic '{"name":"bw","type":"bandwidth","stream":"downstream","attributes":{"rate":128}}'
	k6run get.js -- "TARGET=$(url $P_TOXI)" EXEC=constant-vus VUS=3 DUR=8s
}

case_toxi_bandwidth_up() {
	WHAT="toxiproxy bandwidth 512 KB/s per connection upstream, 256 KiB uploads (POST) to the fake server (20 ms), constant-vus 2 8 s: ~0.5 s per upload"
	MUST="upload-limited"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	mbserver --work 20ms
	toxiproxy $P_SERVER
	toxic '{"name":"bw","type":"bandwidth","stream":"upstream","attributes":{"rate":512}}'
	k6run upload.js -- "TARGET=$(url $P_TOXI)" EXEC=constant-vus VUS=2 DUR=8s BODY_KB=256
}

case_toxi_limit_data() {
	WHAT="toxiproxy limit_data 20000 bytes downstream (each connection closed after ~20 kB), fake server 10 ms with 4 KiB bodies, constant-arrival-rate 40/s 5 s: about every 5th request on a connection cut"
	MUST="upstream-failing"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-arrival-rate"
	mbserver --work 10ms --size 4KiB
	toxiproxy $P_SERVER
	toxic '{"name":"cut","type":"limit_data","stream":"downstream","attributes":{"bytes":20000}}'
	k6run get.js -- "TARGET=$(url $P_TOXI)" EXEC=constant-arrival-rate RATE=40 DUR=5s VUS=20 MAX_VUS=20
}

case_toxi_timeout() {
	WHAT="toxiproxy timeout 1000 ms downstream (no data comes back; the connection is closed after 1 s), fake server 50 ms, constant-arrival-rate 10/s 5 s: every request fails after ~1 s"
	MUST="upstream-failing"; MUSTNOT=$(rest) # nothing was answered: no path-latency
	ANALYZE="executor: constant-arrival-rate"
	NOTE="the fake server answered every request; toxiproxy drops the answers"
	mbserver --work 50ms
	toxiproxy $P_SERVER
	toxic '{"name":"to","type":"timeout","stream":"downstream","attributes":{"timeout":1000}}'
	k6run get.js -- "TARGET=$(url $P_TOXI)" EXEC=constant-arrival-rate RATE=10 DUR=5s VUS=15 MAX_VUS=30
}

case_toxi_reset_peer() {
	WHAT="toxiproxy reset_peer 300 ms downstream (data held 300 ms, then the connection reset), fake server 50 ms, constant-arrival-rate 40/s 5 s: every request reset after ~0.3 s, VUs run short"
	MUST="upstream-failing"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-arrival-rate"
	NOTE="dropped_iterations come from VUs held by the 0.3 s failures, not from the generator's CPU"
	mbserver --work 50ms
	toxiproxy $P_SERVER
	toxic '{"name":"rst","type":"reset_peer","stream":"downstream","attributes":{"timeout":300}}'
	k6run get.js -- "TARGET=$(url $P_TOXI)" EXEC=constant-arrival-rate RATE=40 DUR=5s VUS=5 MAX_VUS=20
}

case_toxi_slow_close() {
	WHAT="toxiproxy slow_close 1000 ms downstream with a new connection per request (noConnectionReuse), fake server 50 ms, constant-vus 3 5 s: the client has its answer before the close, nothing to see"
	MUST="healthy"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	mbserver --work 50ms
	toxiproxy $P_SERVER
	toxic '{"name":"sc","type":"slow_close","stream":"downstream","attributes":{"delay":1000}}'
	k6run get.js -- "TARGET=$(url $P_TOXI)" EXEC=constant-vus VUS=3 DUR=5s NO_REUSE=1
}

case_toxi_slicer() {
	WHAT="toxiproxy slicer downstream (128-byte slices +-64, 2 ms apart), fake server 20 ms with 16 KiB bodies, constant-vus 3 6 s: ~0.25 s of receiving per body"
	MUST="download-limited"; MUSTNOT=$(rest)
	ANALYZE="executor: constant-vus"
	mbserver --work 20ms --size 16KiB
	toxiproxy $P_SERVER
	toxic '{"name":"sl","type":"slicer","stream":"downstream","attributes":{"average_size":128,"size_variation":64,"delay":2000}}'
	k6run get.js -- "TARGET=$(url $P_TOXI)" EXEC=constant-vus VUS=3 DUR=6s
}
