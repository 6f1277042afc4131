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
	got   atomic.Pointer[os.Signal]
	sigs  chan os.Signal
	done  chan struct{}
	fired chan struct{} // closed once got is set
}

// catchSignals starts handling stopSignals until release is called. Call
// it before the work that should stop cleanly.
func catchSignals() *interrupter {
	in := &interrupter{sigs: make(chan os.Signal, 1), done: make(chan struct{}), fired: make(chan struct{})}
	signal.Notify(in.sigs, stopSignals...)
	go func() {
		select {
		case s := <-in.sigs:
			in.got.Store(&s)
			close(in.fired)
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

// await runs work, which must write nothing, and returns its error; once a
// stop signal arrives it returns at once with the interrupted error (err),
// leaving work to end with the process: the stages a command does not poll
// (a planner's, a sort) cannot delay the exit. A nil interrupter (signals
// not handled) runs work in line.
func (in *interrupter) await(what string, work func() error) error {
	if in == nil {
		return work()
	}
	done := make(chan error, 1)
	go func() { done <- work() }()
	select {
	case err := <-done:
		if ierr := in.err(what); ierr != nil {
			return ierr
		}
		return err
	case <-in.fired:
		return in.err(what)
	}
}

// release stops handling the signals (the default actions return), unless
// one arrived: the command is then ending with its one line, and a second
// signal (a repeated Ctrl-C) is swallowed instead of killing it before the
// line is printed and its output directory removed.
func (in *interrupter) release() {
	if in.got.Load() == nil {
		signal.Stop(in.sigs)
	}
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

// catchSIGPIPE makes a write to a closed pipe on stdout or stderr (`fleetsim
// simulate --out D | head`) fail with EPIPE, as it does on any other file,
// instead of killing the process, until the returned release is called:
// simulate then puts back the earlier run's files it replaced, as for any
// failure printing its results (TestRerunStdoutClosedPipe).
func catchSIGPIPE() (release func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGPIPE)
	return func() { signal.Stop(ch) }
}
