// Package units holds the value types shared by command-line flags and YAML
// files: durations, byte sizes, byte rates, event rates and delay
// distributions. Each type parses the same text in both places (it implements
// pflag.Value and yaml.Unmarshaler), prints back in a form it parses, and
// refuses negative or malformed values with an error that quotes the input.
package units
