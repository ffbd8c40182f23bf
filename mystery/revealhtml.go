package mystery

import (
	"fmt"
	"html/template"
	"io"
	"strings"
)

// revealPage is the reveal as one self-contained HTML page, for the
// teacher's projector: the same key and verdicts as the text.
var revealPage = template.Must(template.New("reveal").Funcs(template.FuncMap{
	"join": strings.Join, "rule": Rule,
	"ms": func(v float64) string { return fmt.Sprintf("%.1f", v) },
}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>mystery {{.Key.ID}} — the answer key</title>
<style>
body { font: 15px/1.45 system-ui, sans-serif; margin: 1em 2em; color: #222; background: #fafafa; }
h1 { font-size: 1.4em; } h2 { font-size: 1.1em; margin-top: 1.4em; }
.line { background: #fff; border: 1px solid #ddd; border-left: 6px solid #e53935; border-radius: 6px; padding: .4em 1em; margin: .6em 0; }
.line.decoy { border-left-color: #9e9e9e; } .budget { color: #555; }
table { border-collapse: collapse; background: #fff; } td, th { border: 1px solid #ddd; padding: .25em .6em; text-align: left; vertical-align: top; }
.right { color: #2e7d32; } .wrong { color: #c62828; } .missed { color: #ef6c00; } .tally { font-size: 1.2em; font-weight: bold; }
code { font-weight: bold; }
</style></head><body>
<h1>mystery {{.Key.ID}} (seed {{.Key.Seed}}, level {{.Key.Level}}) — the answer key</h1>
{{if gt .Key.Requests 0.0}}<p>{{.Key.Requests}} requests, {{.Key.Connections}} connections through the path.</p>{{end}}
{{range $i, $l := .Key.Lines}}<div class="line{{if $l.Decoy}} decoy{{end}}">
<b>{{$l.Cause}}</b> [{{if $l.Decoy}}DECOY{{else}}cause{{end}}, {{$l.Where}}{{if $l.Stage}}, {{$l.Stage}}{{end}}] — {{$l.What}}
{{range $l.Facts}}<br>did: {{.}}{{end}}
{{if $l.Phases}}<br>explains, per request on average: {{range $j, $p := $l.Phases}}{{if $j}}, {{end}}{{$p.Phase}} {{ms $p.Ms}} ms{{end}}{{end}}
{{if $l.Decoy}}<br>a decoy: naming {{join $l.Codes " or "}} is wrong{{else}}<br>named by: <code>{{join $l.Codes " or "}}</code> — rule {{$l.Rule}}: {{rule $l.Rule}}{{end}}
</div>{{end}}
{{with .Key.Budget}}<p class="budget">Apart from the puzzle: {{.Text}}</p>{{end}}
{{range .Key.Notes}}<p>note: {{.}}</p>{{end}}
<h2>Answers: {{len .Verdicts}} students, {{.Given}} answers given</h2>
{{if .Verdicts}}<p class="tally">{{.Perfect}} of {{len .Verdicts}} named every cause and nothing else</p>
<table><tr><th>name</th><th>last answer</th><th>via, at</th><th>verdict</th></tr>
{{range .Rows}}<tr><td>{{.A.Name}}{{if gt .A.Revision 1}}<br><small>revision {{.A.Revision}}</small>{{end}}</td><td><code>{{join .A.Codes " "}}</code></td><td>{{.A.Via}}<br><small>{{.A.At}}</small></td><td>
{{range .V.Right}}<div class="right">right {{.Code}} — {{.Why}}</div>{{end}}
{{range .V.Wrong}}<div class="wrong">wrong {{.Code}} — {{.Why}}</div>{{end}}
{{range .V.Missed}}<div class="missed">missed {{.Cause}} ({{join .Codes " or "}}) — rule {{.Rule}}: {{rule .Rule}}</div>{{end}}
</td></tr>{{end}}</table>{{else}}<p>no answers yet</p>{{end}}
</body></html>
`))

// Text is the budget's line as the reveal says it.
func (b *BudgetLine) Text() string { return b.text() }

// WriteRevealHTML writes the reveal as one HTML page.
func WriteRevealHTML(w io.Writer, k Key, all []Answer) error {
	type row struct {
		A Answer
		V Verdict
	}
	data := struct {
		Key            Key
		Verdicts       []Verdict
		Rows           []row
		Given, Perfect int
	}{Key: k, Given: len(all)}
	for _, a := range Latest(all) {
		v := k.Score(a)
		data.Verdicts = append(data.Verdicts, v)
		data.Rows = append(data.Rows, row{a, v})
		if len(v.Wrong) == 0 && len(v.Missed) == 0 {
			data.Perfect++
		}
	}
	return revealPage.Execute(w, data)
}
