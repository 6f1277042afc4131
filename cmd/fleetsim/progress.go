package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// progressBar draws "simulate [=====>    ]  45% 45,000/100,000 requests"
// on a terminal, redrawing at most ten times a second. The wall clock only
// paces the drawing; it never reaches the results.
type progressBar struct {
	w     io.Writer
	name  string // what runs, e.g. "simulate"
	unit  string // what is counted, e.g. "requests"
	total int64
	last  time.Time
	drawn bool
}

func newProgressBar(w io.Writer, total int64) *progressBar {
	return newCountBar(w, total, "simulate", "requests")
}

// newCountBar is a progress bar for total units of work named name.
func newCountBar(w io.Writer, total int64, name, unit string) *progressBar {
	return &progressBar{w: w, total: max(total, 1), name: name, unit: unit}
}

// update is sim.Options.Progress.
func (p *progressBar) update(arrived int64) {
	now := time.Now()
	if p.drawn && now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last, p.drawn = now, true
	p.draw(arrived)
}

func (p *progressBar) draw(n int64) {
	const width = 30
	frac := min(float64(n)/float64(p.total), 1)
	fill := int(frac * width)
	bar := strings.Repeat("=", fill)
	if fill < width {
		bar += ">" + strings.Repeat(" ", width-fill-1)
	}
	fmt.Fprintf(p.w, "\r%s [%s] %3.0f%% %d/%d %s", p.name, bar, 100*frac, n, p.total, p.unit)
}

// done clears the bar's line.
func (p *progressBar) done() {
	if p.drawn {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", 80))
	}
}
