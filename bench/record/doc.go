// Package record is the record of a replay as data, and its judging: what
// each run measured (RunResult: the generator's results, the server's and
// each stage's views, the analyzer's report, how busy the machine was), an
// experiment's runs with the engine and with real k6 (ExperimentResult,
// K6Run, FairRound), and the checks of each run against the expectations
// its experiment declares.
//
//   - record.go: the types a report reads; summary.go: a whole replay
//     (Summary) and the machine it ran on;
//   - checkall.go, check.go: a run's checks (a band or a finding code
//     against what the run measured); lookup.go: a metric reference of a
//     run; derived.go: figures computed apart from the devices, such as a
//     fixed window's passes;
//   - disturb.go, disturbrun.go: how busy the machine was over what a check
//     read, and the rule that makes a failure on a busy machine "not
//     measured" rather than FAIL; verdict.go: PASS, FAIL, not measured.
//
// It imports nothing of the harness (bench), which runs the experiments,
// fills their records and prints them.
package record
