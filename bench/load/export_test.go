package load

// RaceEnabled lets the external tests (package load_test) see raceEnabled.
const RaceEnabled = raceEnabled
