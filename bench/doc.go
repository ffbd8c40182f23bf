// Package bench is the harness behind `middlebench bench` and `run`: it
// replays the experiments of experiments/*.yaml — the fake server, the
// path's boxes (and wire), the load engine and, when there is one, real k6
// with a script generated from the same YAML — checks what each run must
// show and writes RESULTS.md.
//
// The experiment file itself (its types, ${vars}, bounds and their
// arithmetic, validation) is package bench/experiment; the record of a
// replay (RunResult, ExperimentResult, K6Run, Summary), its checks and the
// rule for a busy machine are package bench/record. This package is three
// things, each in its own files:
//
//   - running: runner.go (Runner), attempts.go, target.go,
//     served.go and serve.go (a run's server and path for another
//     generator), child.go and generators.go (generators: N child
//     processes), wire.go, pin_*.go, arrivals.go, progress.go, and the
//     disturbance a shared machine adds, as measured (disturb_*.go,
//     loadmeter.go, runcpu.go, cpushare_*.go);
//   - the replay with real k6 and its fidelity: k6script.go and
//     k6options.go (the script from the YAML), k6command.go, k6run.go,
//     k6steps.go, k6cpu.go, and fidelity*.go (k6 against the engine, phase
//     by phase, re-measured when they disagree, and why);
//   - results: all.go (Options, RunAll: every experiment), print.go (the
//     terminal), results.go, charts.go and machine.go (RESULTS.md, its
//     charts and the machine it names).
//
// An experiment is one YAML file and no Go: see the README's "The
// experiments".
package bench
