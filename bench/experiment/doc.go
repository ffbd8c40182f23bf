// Package experiment is the experiment file of experiments/*.yaml and
// what each run must show, as declared: the YAML's types (Experiment,
// RunSpec, Expect, Band, Figure, ChartSpec), ${name} vars, the arithmetic
// of bounds, and the validation that names the field and the line of
// every error before anything runs. It runs nothing: package bench starts
// the server, the path and the load, and judges each band against what a
// run measured.
//
//   - experiment.go: Experiment and RunSpec, Load and Parse, validation,
//     Isolation's CPUs;
//   - vars.go: ${name}, expanded from vars (or quick) before decoding;
//   - expect.go: Expect and Band, the references @{…} in a bound, margins;
//   - expr.go: a bound's arithmetic, numbers and durations (in ms);
//   - wire.go: SetWire, a wire put in front of every path (run --wire).
package experiment
