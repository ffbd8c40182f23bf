package merge

import (
	"github.com/middlebench/middlebench/bench/diagnose"
	"github.com/middlebench/middlebench/bench/metrics"
)

// Analyze runs the analyzer on a merged document, with its default rules:
// what `middlebench analyze merged.json` would say.
func Analyze(doc *metrics.Document, source string) (diagnose.Report, error) {
	obs, err := diagnose.FromDocument(doc)
	if err != nil {
		return diagnose.Report{}, err
	}
	r := diagnose.Analyze(obs, diagnose.DefaultConfig())
	r.Source = source
	return r, nil
}
