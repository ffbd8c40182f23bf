package dashboard

import (
	_ "embed"
	"encoding/json"
	"html/template"
	"io"

	"github.com/middlebench/middlebench/internal/atomicfile"
)

var (
	//go:embed assets/page.html
	pageHTML string
	//go:embed assets/app.js
	appJS string
	//go:embed assets/app.css
	appCSS string
	//go:embed assets/uPlot.iife.min.js
	uplotJS string
	//go:embed assets/uPlot.min.css
	uplotCSS string
	//go:embed assets/uPlot.LICENSE
	uplotLicense string
)

var page = template.Must(template.New("page").Parse(pageHTML))

// render writes the page with every asset inlined: live (state nil: it
// connects to /events) or a report (state inlined: it draws once, offline).
func render(w io.Writer, state *State) error {
	data := template.JS("null")
	title := "middlebench — live"
	if state != nil {
		b, err := json.Marshal(state) // escapes <, > and &: safe inside <script>
		if err != nil {
			return err
		}
		data = template.JS(b)
		title = "middlebench report — " + state.Title
	}
	return page.Execute(w, map[string]any{
		"Title": title, "Data": data,
		"UplotJS": template.JS(uplotJS), "UplotCSS": template.CSS(uplotCSS), "License": uplotLicense,
		"AppJS": template.JS(appJS), "AppCSS": template.CSS(appCSS),
	})
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// WriteReport saves the page as it stands, data inlined, as one
// self-contained HTML file (written whole or not at all).
func (d *Dashboard) WriteReport(path string) error {
	s := d.Snapshot()
	return atomicfile.Write(path, func(w io.Writer) error { return render(w, &s) })
}
