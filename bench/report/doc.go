// Package report reads the record of a replay (bench/record) and writes it
// out: the terminal's report of each experiment and of the whole replay
// (print.go), RESULTS.md (results.go) and its charts (charts.go), and the
// fidelity of real k6 to the engine, phase by phase (fidelity.go: the
// table; fidelitycpu.go: when a generator's CPU exempts a row;
// fidelitywhy.go: why a figure differs).
//
// It measures nothing and imports nothing of the harness (bench), which
// runs the experiments and hands each record here.
package report
