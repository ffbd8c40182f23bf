package dashboard

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/middlebench/middlebench/bench/load"
	"github.com/middlebench/middlebench/fakeserver"
	"github.com/middlebench/middlebench/internal/units"
)

// chromium finds Debian's chromium; without it the test is skipped,
// saying why (a test installs nothing: .ci/run installs Debian's chromium
// package on a fresh CI machine).
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("chromium is not installed (Debian's chromium package; .ci/run installs it on CI)")
	return ""
}

// A real headless Chromium loads the page during a run, waits until the
// chart has drawn three seconds, and — once the run ended — shows the
// engine's own numbers: requests, failures, each status's count, the mean
// duration. The screenshot is kept under the test's artifacts
// (go test -artifacts -outputdir DIR).
func TestDashboardInChromium(t *testing.T) {
	bin := chromium(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv, err := fakeserver.Start(ctx, fakeserver.Config{Listen: "127.0.0.1:0", Work: mustDist(t, "5ms")})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var agg Aggregator
	d := New("chromium test", Sources{Load: &agg, Server: srv.Stats})
	url, err := d.Serve(ctx, "127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	go d.Run(ctx)
	type outcome struct {
		res *load.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		cfg := &load.Config{URL: srv.URL() + "/", VUs: 3, Duration: units.Duration(6 * time.Second)}
		res, err := load.Run(ctx, cfg, load.Options{Observer: &agg})
		if err == nil {
			view := srv.Stats()
			d.Finish(FinalFindings(res, &view))
		}
		done <- outcome{res, err}
	}()

	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(bin), chromedp.Flag("headless", true), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true), chromedp.NoFirstRun, chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 1400))
	defer cancelAlloc()
	browser, cancelBrowser := chromedp.NewContext(alloc)
	defer cancelBrowser()

	if err := chromedp.Do(browser, chromedp.Navigate(url)); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	waitFor(t, browser, `Number(document.body.dataset.drawnSeconds || 0) >= 3`)
	drawn := eval[int](t, browser, `Number(document.body.dataset.drawnSeconds)`)
	// One evaluation: a point may arrive between two.
	both := eval[[]int](t, browser, `[Number(document.getElementById('requests').textContent), mbState.points.reduce((s, p) => s + p.requests, 0)]`)
	shown, summed := both[0], both[1]
	t.Logf("during the run: %d seconds drawn, %d requests shown, %d in the points", drawn, shown, summed)
	if shown != summed || shown == 0 {
		t.Errorf("during the run the page shows %d requests, its points add up to %d", shown, summed)
	}

	o := <-done
	if o.err != nil {
		t.Fatal(o.err)
	}
	doc := o.res.Document()
	waitFor(t, browser, `document.getElementById("status").classList.contains("final")`)
	requests := eval[int64](t, browser, `Number(document.getElementById('requests').textContent)`)
	failed := eval[int64](t, browser, `Number(document.getElementById('failed').textContent)`)
	duration := eval[string](t, browser, `document.getElementById('duration').textContent`)
	statuses := eval[map[string]string](t, browser,
		`Object.fromEntries([...document.querySelectorAll('#statuses tr[data-status]')].map(r => [r.dataset.status, r.cells[1].textContent]))`)
	png, err := chromedp.Run(browser, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("chromium: screenshot: %v", err)
	}
	if requests != o.res.Requests || failed != o.res.Failed {
		t.Errorf("the page shows %d requests, %d failed; the engine counted %d, %d", requests, failed, o.res.Requests, o.res.Failed)
	}
	if len(statuses) != len(doc.Statuses) {
		t.Errorf("statuses shown %v, the engine's %v", statuses, doc.Statuses)
	}
	for code, n := range doc.Statuses {
		if statuses[code] != strconv.FormatInt(n, 10) {
			t.Errorf("status %s: the page shows %q, the engine counted %d", code, statuses[code], n)
		}
	}
	// The page prints the mean to 0.01 ms; the engine's is the same sum
	// over the same count, so they agree to that rounding.
	want := fmt.Sprintf("%.2f", doc.Metrics["http_req_duration"].Values["avg"])
	if strings.TrimSpace(duration) != want {
		t.Errorf("the page shows a mean duration of %s ms, the engine's is %s ms", duration, want)
	}
	// Without a pointer over the charts, the legends show the last second
	// (not uPlot's "--"); every drawn quantity has its line of help and
	// its values; the server's own tile and table are filled.
	legend := eval[[]string](t, browser, `[...document.querySelectorAll('#phases .u-legend .u-value')].map(e => e.textContent)`)
	for i, v := range legend {
		if v == "--" || v == "" {
			t.Errorf("legend value %d is %q without hovering: %v", i, v, legend)
		}
	}
	waitingLegend := eval[string](t, browser, `[...document.querySelectorAll('#phases .u-legend .u-series')].find(r => r.textContent.includes('waiting')).querySelector('.u-value').textContent`)
	help := eval[map[string][]string](t, browser,
		`Object.fromEntries([...document.querySelectorAll('#phasehelp tr[data-quantity]')].map(r => [r.dataset.quantity, [...r.cells].slice(2).map(c => c.textContent)]))`)
	for _, q := range []string{"blocked", "connecting", "tls_handshaking", "sending", "waiting", "receiving", "server_time", "outside", "apm"} {
		if h := help[q]; len(h) != 3 || h[2] == "" || h[1] == "–" {
			t.Errorf("quantity %s: the page shows %q; want its run average and a line of help", q, h)
		}
	}
	if waitingLegend != help["waiting"][0] {
		t.Errorf("the legend shows waiting %q without hovering; the last second's is %q", waitingLegend, help["waiting"][0])
	}
	apm := eval[string](t, browser, `document.getElementById('apm').textContent`)
	view := srv.Stats()
	if want := fmt.Sprintf("%.2f", view.ServerTime["avg"]); apm != want {
		t.Errorf("the server's own avg tile shows %q; its /_mb/stats says %s", apm, want)
	}
	// The saved report shows the same numbers as the page at the end.
	tiles := `['requests','failed','rps','duration','server','apm','seconds'].map(id => document.getElementById(id).textContent)`
	live := eval[[]string](t, browser, tiles)
	report := filepath.Join(t.TempDir(), "report.html")
	if err := d.WriteReport(report); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(browser, chromedp.Navigate("file://"+report)); err != nil {
		t.Fatalf("chromium: report: %v", err)
	}
	waitFor(t, browser, `document.getElementById("status").classList.contains("final")`)
	if saved := eval[[]string](t, browser, tiles); fmt.Sprint(saved) != fmt.Sprint(live) {
		t.Errorf("the report's tiles %v, the page's at the end %v", saved, live)
	}
	shot := filepath.Join(t.ArtifactDir(), "dashboard.png")
	if err := os.WriteFile(shot, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d bytes); %d requests, statuses %v", shot, len(png), requests, statuses)
}

func waitFor(t *testing.T, browser context.Context, predicate string) {
	t.Helper()
	if _, err := chromedp.Run(browser, chromedp.Poll[bool](predicate, chromedp.WithPollingTimeout(30*time.Second))); err != nil {
		t.Fatalf("chromium: waiting for %s: %v", predicate, err)
	}
}

func eval[T any](t *testing.T, browser context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(browser, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("chromium: %s: %v", expr, err)
	}
	return v
}

func mustDist(t *testing.T, s string) units.Dist {
	t.Helper()
	d, err := units.ParseDist(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// The answer form in a real Chromium, opened before the first second
// was sampled (the page once failed on a state without points): the
// student ticks two codes of the
// pick-list and submits; the source gets them comma-joined with no token;
// the second submission under the same name sends the token the first was
// given (kept by the page), so the name's owner can revise.
func TestAnswerFormInChromium(t *testing.T) {
	bin := chromium(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	got := make(chan string, 4)
	d := New("mystery m0123456789ab", Sources{Answer: func(name, codes, token string) (string, error) {
		got <- name + "|" + codes + "|" + token
		return "tok42", nil
	}})
	url, err := d.Serve(ctx, "127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	go d.Run(ctx)
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, chromedp.ExecPath(bin), chromedp.Flag("headless", true),
		chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.UserDataDir(t.TempDir()))
	defer cancelAlloc()
	browser, cancelBrowser := chromedp.NewContext(alloc)
	defer cancelBrowser()
	if err := chromedp.Do(browser, chromedp.Navigate(url)); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	waitFor(t, browser, `document.querySelectorAll('#codepick input').length > 10`)
	submit := `(() => {
		document.querySelector('#answer input[name=name]').value = 'ada';
		document.querySelectorAll('#codepick input').forEach(i => { i.checked = i.value === 'path-latency' || i.value === 'rate-limited'; });
		document.querySelector('#answer button').click();
		return true; })()`
	for i, want := range []string{"ada|path-latency,rate-limited|", "ada|path-latency,rate-limited|tok42"} {
		eval[bool](t, browser, submit)
		select {
		case g := <-got:
			if g != want {
				t.Errorf("submission %d reached the source as %q, want %q", i+1, g, want)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("submission %d never reached the source", i+1)
		}
		waitFor(t, browser, `document.getElementById('answerstatus').textContent.startsWith('answer recorded for ada')`)
	}
}
