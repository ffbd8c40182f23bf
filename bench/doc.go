// Package bench is the harness behind `middlebench bench` and `run`: it
// replays the experiments of experiments/*.yaml — the fake server, the
// path's boxes (and wire), the load engine and, when there is one, real k6
// with a script generated from the same YAML — checks what each run must
// show and writes RESULTS.md.
//
// The experiment file itself (its types, ${vars}, bounds and their
// arithmetic, validation) is package bench/experiment; the record of a
// replay (RunResult, ExperimentResult, K6Run, Summary), its checks and the
// rule for a busy machine are package bench/record; what reads the record
// (the terminal's report, RESULTS.md, its charts, the fidelity of k6 to
// the engine) is package bench/report. This package runs the replay, in
// three parts, each in its own files:
//
//   - running: runner.go (Runner), attempts.go, target.go,
//     served.go and serve.go (a run's server and path for another
//     generator), child.go and generators.go (generators: N child
//     processes), wire.go, pin_*.go, arrivals.go, progress.go, and the
//     disturbance a shared machine adds, as measured (disturb_*.go,
//     loadmeter.go, runcpu.go, cpushare_*.go);
//   - the replay with real k6 (its script, generated from the YAML, is
//     package bench/k6script): k6command.go, k6run.go, k6steps.go,
//     k6cpu.go, and fidelityround.go (a run whose phases k6 and the
//     engine disagree on, re-measured by both alike);
//   - every experiment: all.go (Options, RunAll) and machine.go (the
//     machine the replay ran on, and its load).
//
// An experiment is one YAML file and no Go: see the README's "The
// experiments".
package bench
