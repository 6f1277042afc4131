package main

import (
	"fmt"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
)

// stopSignals end a run cleanly: the work stops at its next check, no output
// file is left behind, and the command exits with status 1 and one line
// naming the signal. SIGHUP (the terminal closed) and SIGQUIT (Ctrl-\) are
// handled like SIGINT (Ctrl-C) and SIGTERM.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

// interrupter records the first stop signal received.
type interrupter struct {
	got  atomic.Pointer[os.Signal]
	sigs chan os.Signal
	done chan struct{}
}

// catchSignals starts handling stopSignals until release is called. Call
// it before the work that should stop cleanly.
func catchSignals() *interrupter {
	in := &interrupter{sigs: make(chan os.Signal, 1), done: make(chan struct{})}
	signal.Notify(in.sigs, stopSignals...)
	go func() {
		select {
		case s := <-in.sigs:
			in.got.Store(&s)
		case <-in.done:
		}
	}()
	return in
}

// stopped reports whether a stop signal arrived (sim.Options.Stop).
func (in *interrupter) stopped() bool { return in.got.Load() != nil }

// err is the error of an interrupted command: what was stopped and the
// signal; nil when no signal arrived.
func (in *interrupter) err(what string) error {
	s := in.got.Load()
	if s == nil {
		return nil
	}
	return fmt.Errorf("interrupted by %v: %s", signalName(*s), what)
}

// release stops handling the signals (the default actions return).
func (in *interrupter) release() {
	signal.Stop(in.sigs)
	close(in.done)
}

func signalName(s os.Signal) string {
	switch s {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	}
	return s.String()
}
