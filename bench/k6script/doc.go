// Package k6script is the k6 script of an experiment's run, generated from
// the YAML alone: the experiment file is the only description of a run,
// for the engine and for real k6 alike.
//
//   - k6script.go: the script (Scripts, ForRun) and Write, behind
//     `middlebench run FILE --k6-script`; the requests of the mix and the
//     template whose functions do what the engine does per iteration;
//   - k6options.go: the options object, in k6's names, every schedule
//     field explicit so that k6's defaults and the engine's cannot drift.
//
// Both generators resolve a run's URLs by one rule, load.Config.Aim.
//
// It is pure: an experiment in, JavaScript out; it runs nothing. Running
// the script with real k6, reading what k6 wrote and the fair rounds
// against the engine are bench's.
package k6script
