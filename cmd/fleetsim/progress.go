package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode/utf8"
)

// isTerminal reports whether w is a character device (a terminal); a
// variable so that tests can draw progress bars into a buffer.
var isTerminal = func(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// progressBar draws
//
//	simulate [=====>    ]  45% 45000/100000 requests  9120 req/s  elapsed 4.9s  ETA 6.0s
//
// on a terminal, redrawing at most ten times a second: the arrivals so far,
// their rate in requests per wall-clock second, the time since the start
// and the time left at that rate. The wall clock only paces and describes
// the drawing; it never reaches the results.
type progressBar struct {
	w     io.Writer
	name  string // what runs; "" is "simulate" (with "requests", "req/s")
	unit  string // what is counted, e.g. "points"
	rate  string // its rate's unit, e.g. "points/s"
	total int64
	start time.Time
	last  time.Time
	drawn bool
	width int // runes of the line on screen (0: none)
}

func newProgressBar(w io.Writer, total int64) *progressBar {
	return newCountBar(w, total, "", "", "")
}

// newCountBar is a progress bar named name for total units of work (unit;
// rate is the unit of their rate).
func newCountBar(w io.Writer, total int64, name, unit, rate string) *progressBar {
	return &progressBar{w: w, total: max(total, 1), start: time.Now(), name: name, unit: unit, rate: rate}
}

// update is sim.Options.Progress.
func (p *progressBar) update(arrived int64) {
	now := time.Now()
	if p.drawn && now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last, p.drawn = now, true
	line := p.line(arrived, now.Sub(p.start))
	n := utf8.RuneCountInString(line)
	// A shorter line than the last one blanks the rest.
	fmt.Fprintf(p.w, "\r%s%s", line, strings.Repeat(" ", max(p.width-n, 0)))
	p.width = max(p.width, n)
}

// line is the bar for n arrivals after elapsed wall-clock time.
func (p *progressBar) line(n int64, elapsed time.Duration) string {
	const width = 30
	frac := min(float64(n)/float64(p.total), 1)
	fill := int(frac * width)
	bar := strings.Repeat("=", fill)
	if fill < width {
		bar += ">" + strings.Repeat(" ", width-fill-1)
	}
	name, unit, rateUnit := p.name, p.unit, p.rate
	if name == "" {
		name, unit, rateUnit = "simulate", "requests", "req/s"
	}
	s := fmt.Sprintf("%s [%s] %3.0f%% %d/%d %s", name, bar, 100*frac, n, p.total, unit)
	secs := elapsed.Seconds()
	if secs <= 0 || n <= 0 {
		return s + "  elapsed " + roundDuration(elapsed)
	}
	rate := float64(n) / secs
	eta := time.Duration(float64(max(p.total-n, 0)) / rate * float64(time.Second))
	prec := 0 // 9120 req/s; a slow count such as 0.47 points/s keeps two decimals
	if rate < 10 {
		prec = 2
	}
	return fmt.Sprintf("%s  %.*f %s  elapsed %s  ETA %s", s, prec, rate, rateUnit, roundDuration(elapsed), roundDuration(eta))
}

// roundDuration shows d to 0.1 s (to 1 s beyond a minute).
func roundDuration(d time.Duration) string {
	if d >= time.Minute {
		return d.Round(time.Second).String()
	}
	return d.Round(100 * time.Millisecond).String()
}

// done clears the bar's line, however long it was, and leaves the cursor at
// its start; call it before printing results (a second call does nothing).
func (p *progressBar) done() {
	if p.width > 0 {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.width))
		p.width = 0
	}
}
